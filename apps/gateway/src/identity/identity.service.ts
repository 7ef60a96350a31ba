import { randomBytes } from 'node:crypto';
import { conflict, notFound, validationFailed } from '@platform/errors';
import type { Principal } from '@platform/grpc';
import { issueApiKey, parseApiKey, secretMatches } from './api-key.codec';
import { IdentityRepository } from './identity.repository';

export interface CreateOrgInput {
  orgId?: string;
  name: string;
  isRetailer: boolean;
  dimensionWhitelist?: string[];
}

/** Orgs, accounts and API keys: the identity behind DESIGN.md's admin API and every /v2 call. */
export class IdentityService {
  constructor(
    private readonly repository: IdentityRepository,
    /** Every permission a key may be granted; anything else is a typo worth refusing. */
    private readonly knownPermissions: ReadonlySet<string>,
  ) {}

  async createOrg(input: CreateOrgInput): Promise<string> {
    const orgId = input.orgId ?? `org_${randomBytes(6).toString('hex')}`;
    const whitelist = [...new Set(input.dimensionWhitelist ?? [])];
    try {
      await this.repository.insertOrg({ orgId, name: input.name.trim(), isRetailer: input.isRetailer, dimensionWhitelist: whitelist });
    } catch (error) {
      if ((error as { code?: string }).code === 'ER_DUP_ENTRY') throw conflict('ORG_EXISTS', `Organization ${orgId} already exists.`);
      throw error;
    }
    return orgId;
  }

  async createAccount(orgId: string, name: string): Promise<number> {
    if (!(await this.repository.orgExists(orgId))) throw notFound('ORG_NOT_FOUND', `Organization ${orgId} was not found.`);
    return this.repository.insertAccount(orgId, name.trim());
  }

  async createApiKey(input: { orgId: string; accountIds?: number[]; permissions: string[] }): Promise<{ keyId: string; apiKey: string }> {
    const errors = input.permissions
      .map((permission, i) => ({ permission, i }))
      .filter(({ permission }) => permission !== '*' && !this.knownPermissions.has(permission))
      .map(({ permission, i }) => ({ pointer: `/permissions/${i}`, code: 'UNKNOWN_PERMISSION', detail: `Unknown permission ${JSON.stringify(permission)}; see GET /openapi.json (x-permissions) for the list.` }));
    if (!(await this.repository.orgExists(input.orgId))) {
      errors.push({ pointer: '/orgId', code: 'UNKNOWN_ORG', detail: `Organization ${input.orgId} does not exist.` });
    } else if (input.accountIds) {
      const ofOrg = new Set(await this.repository.accountIdsOfOrg(input.orgId));
      input.accountIds.forEach((accountId, i) => {
        if (!ofOrg.has(accountId)) errors.push({ pointer: `/accountIds/${i}`, code: 'UNKNOWN_ACCOUNT', detail: `Account ${accountId} is not an account of organization ${input.orgId}.` });
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
    if (!(await this.repository.revokeApiKey(keyId))) throw notFound('API_KEY_NOT_FOUND', `API key ${keyId} was not found.`);
  }

  /** Resolves a presented key to its principal, or null. Read on every call so revocation is immediate. */
  async authenticate(apiKey: string): Promise<Principal | null> {
    const parsed = parseApiKey(apiKey);
    if (!parsed) return null;
    const key = await this.repository.findLiveApiKey(parsed.keyId);
    if (!key || !secretMatches(parsed.secret, key.secretSha256)) return null;
    return {
      keyId: key.keyId,
      orgId: key.orgId,
      accountIds: key.accountIds,
      permissions: key.permissions,
      org: { isRetailer: key.org.isRetailer, dimensionWhitelist: key.org.dimensionWhitelist },
    };
  }
}
