import { randomBytes } from 'node:crypto';
import { problem, validationFailed, type FieldError } from '@platform/errors';
import { issueApiKey } from './api-key.codec';
import { IdentityRepository } from './identity.repository';

export interface CreateOrgInput {
  orgId?: string;
  name: string;
  isRetailer: boolean;
  dimensionWhitelist?: string[];
}

/**
 * Tells every gateway replica that principals it may have cached changed. Each method resolves
 * false when the message could not be confirmed as sent.
 */
export interface PrincipalInvalidator {
  keyRevoked(keyId: string): Promise<boolean>;
  /** The org's account list changed, and with it the principal of each all-accounts key. */
  orgAccountsChanged(orgId: string): Promise<boolean>;
}

const NO_CACHES: PrincipalInvalidator = { keyRevoked: async () => true, orgAccountsChanged: async () => true };

/** Orgs, accounts and API keys: the identity behind the admin API and every /v2 call. */
export class IdentityService {
  constructor(
    private readonly repository: IdentityRepository,
    /** Every permission a key may be granted; anything else is a typo worth refusing. */
    private readonly knownPermissions: ReadonlySet<string>,
    private readonly invalidator: PrincipalInvalidator = NO_CACHES,
  ) {}

  async createOrg(input: CreateOrgInput): Promise<string> {
    const orgId = input.orgId ?? `org_${randomBytes(6).toString('hex')}`;
    const whitelist = [...new Set(input.dimensionWhitelist ?? [])];
    try {
      await this.repository.insertOrg({ orgId, name: input.name.trim(), isRetailer: input.isRetailer, dimensionWhitelist: whitelist });
    } catch (error) {
      if ((error as { code?: string }).code === 'ER_DUP_ENTRY') throw problem('ORG_EXISTS', `Organization ${orgId} already exists.`);
      throw error;
    }
    return orgId;
  }

  async createAccount(orgId: string, name: string): Promise<number> {
    if (!(await this.repository.orgExists(orgId))) throw problem('ORG_NOT_FOUND', `Organization ${orgId} was not found.`);
    const accountId = await this.repository.insertAccount(orgId, name.trim());
    // Not an error when unconfirmed: the account exists, and a cached principal missing it only
    // refuses it (404) until the cache TTL; failing here would invite a retry creating a second one.
    await this.invalidator.orgAccountsChanged(orgId);
    return accountId;
  }

  async createApiKey(input: { orgId: string; accountIds?: number[]; permissions: string[] }): Promise<{ keyId: string; apiKey: string }> {
    const errors = input.permissions
      .map((permission, i) => ({ permission, i }))
      .filter(({ permission }) => permission !== '*' && !this.knownPermissions.has(permission))
      .map(({ permission, i }): FieldError => ({
        pointer: `/permissions/${i}`,
        code: 'UNKNOWN_PERMISSION',
        detail: `Unknown permission ${JSON.stringify(permission)}; see GET /openapi.json (x-permissions) for the list.`,
      }));
    if (!(await this.repository.orgExists(input.orgId))) {
      errors.push({ pointer: '/orgId', code: 'UNKNOWN_ORG', detail: `Organization ${input.orgId} does not exist.` });
    } else if (input.accountIds) {
      const ofOrg = new Set(await this.repository.accountIdsOfOrg(input.orgId));
      input.accountIds.forEach((accountId, i) => {
        if (!ofOrg.has(accountId))
          errors.push({
            pointer: `/accountIds/${i}`,
            code: 'UNKNOWN_ACCOUNT',
            detail: `Account ${accountId} is not an account of organization ${input.orgId}.`,
          });
      });
    }
    if (errors.length > 0) throw validationFailed(errors);
    const issued = issueApiKey();
    await this.repository.insertApiKey({
      keyId: issued.keyId,
      orgId: input.orgId,
      secretSha256: issued.secretSha256,
      permissions: [...new Set(input.permissions)],
      accountIds: input.accountIds && [...new Set(input.accountIds)],
    });
    return { keyId: issued.keyId, apiKey: issued.apiKey };
  }

  async revokeApiKey(keyId: string): Promise<void> {
    if (!(await this.repository.revokeApiKey(keyId))) throw problem('API_KEY_NOT_FOUND', `API key ${keyId} was not found.`);
    // After the commit, so a replica that reloads the key on receipt reads it revoked.
    if (!(await this.invalidator.keyRevoked(keyId))) {
      throw problem(
        'REVOCATION_NOT_BROADCAST',
        `API key ${keyId} is revoked, but not every gateway replica could be told at once; some may accept it until their principal cache expires (PRINCIPAL_CACHE_TTL_MS).`,
      );
    }
  }
}
