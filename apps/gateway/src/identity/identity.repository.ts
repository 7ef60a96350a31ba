import type { Knex } from 'knex';

export interface OrgRecord {
  orgId: string;
  name: string;
  isRetailer: boolean;
  dimensionWhitelist: string[];
}

export interface ApiKeyRecord {
  keyId: string;
  orgId: string;
  secretSha256: Buffer;
  permissions: string[];
  allAccounts: boolean;
  org: OrgRecord;
  /** Accounts the key may act on: the org's accounts for an unrestricted key, else its own list. */
  accountIds: number[];
}

/**
 * Everything authentication needs in one round trip, since it runs on every request: the key, its
 * org and the accounts it reaches (aggregated, so the key row is not repeated per account).
 */
const LIVE_KEY_SQL = `
  SELECT k.key_id, k.org_id, k.secret_sha256, k.permissions, k.all_accounts,
         o.name, o.is_retailer, o.dimension_whitelist,
         CASE WHEN k.all_accounts
              THEN (SELECT JSON_ARRAYAGG(a.account_id) FROM accounts a WHERE a.org_id = k.org_id)
              ELSE (SELECT JSON_ARRAYAGG(ka.account_id) FROM api_key_accounts ka WHERE ka.key_id = k.key_id)
         END AS account_ids
    FROM api_keys k
    JOIN orgs o ON o.org_id = k.org_id
   WHERE k.key_id = ? AND k.revoked_at IS NULL`;

const parseJson = <T>(value: unknown): T => (typeof value === 'string' ? (JSON.parse(value) as T) : (value as T));

export class IdentityRepository {
  constructor(private readonly knex: Knex) {}

  async insertOrg(org: OrgRecord): Promise<void> {
    await this.knex('orgs').insert({
      org_id: org.orgId,
      name: org.name,
      is_retailer: org.isRetailer,
      dimension_whitelist: JSON.stringify(org.dimensionWhitelist),
    });
  }

  async orgExists(orgId: string): Promise<boolean> {
    return (await this.knex('orgs').where({ org_id: orgId }).first('org_id')) !== undefined;
  }

  async insertAccount(orgId: string, name: string): Promise<number> {
    const [accountId] = await this.knex('accounts').insert({ org_id: orgId, name });
    return Number(accountId);
  }

  async accountIdsOfOrg(orgId: string, db: Knex | Knex.Transaction = this.knex): Promise<number[]> {
    const rows: { account_id: number }[] = await db('accounts').where({ org_id: orgId }).orderBy('account_id').select('account_id');
    return rows.map((r) => Number(r.account_id));
  }

  async insertApiKey(key: { keyId: string; orgId: string; secretSha256: Buffer; permissions: string[]; accountIds?: number[] }): Promise<void> {
    await this.knex.transaction(async (trx) => {
      await trx('api_keys').insert({
        key_id: key.keyId,
        org_id: key.orgId,
        secret_sha256: key.secretSha256,
        permissions: JSON.stringify(key.permissions),
        all_accounts: key.accountIds === undefined,
      });
      if (key.accountIds && key.accountIds.length > 0) {
        await trx('api_key_accounts').insert(key.accountIds.map((accountId) => ({ key_id: key.keyId, account_id: accountId })));
      }
    });
  }

  /** Returns false when no live key has that id. */
  async revokeApiKey(keyId: string): Promise<boolean> {
    const count = await this.knex('api_keys')
      .where({ key_id: keyId })
      .whereNull('revoked_at')
      .update({ revoked_at: this.knex.raw('CURRENT_TIMESTAMP(3)') });
    return count > 0;
  }

  async findLiveApiKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const [rows] = (await this.knex.raw(LIVE_KEY_SQL, [keyId])) as [LiveKeyRow[]];
    const row = rows[0];
    if (!row) return undefined;
    return {
      keyId: row.key_id,
      orgId: row.org_id,
      secretSha256: row.secret_sha256,
      permissions: parseJson<string[]>(row.permissions),
      allAccounts: Boolean(row.all_accounts),
      org: { orgId: row.org_id, name: row.name, isRetailer: Boolean(row.is_retailer), dimensionWhitelist: parseJson<string[]>(row.dimension_whitelist) },
      accountIds: (parseJson<number[] | null>(row.account_ids) ?? []).map(Number).sort((a, b) => a - b),
    };
  }
}

interface LiveKeyRow {
  key_id: string;
  org_id: string;
  secret_sha256: Buffer;
  permissions: string | string[];
  all_accounts: number | boolean;
  name: string;
  is_retailer: number | boolean;
  dimension_whitelist: string | string[];
  account_ids: string | number[] | null;
}
