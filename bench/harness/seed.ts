import type { Api } from './http-api';
import { expectJson } from './http-api';

/** The gateway's admin token outside production when ADMIN_TOKEN is unset. */
export const DEV_ADMIN_TOKEN = 'dev-admin-token';

export interface SeededOrg {
  orgId: string;
  apiKey: string;
  /** The org's one account, for account-scoped routes. */
  accountId: number;
}

/** A retailer org with one account and an all-permissions key, through the admin API. */
export async function seedRetailerOrg(api: Api, orgId: string, dimensionWhitelist?: string[]): Promise<SeededOrg> {
  const admin = { token: DEV_ADMIN_TOKEN };
  expectJson<{ orgId: string }>(
    await api('POST', '/admin/v1/orgs', {
      ...admin,
      json: { orgId, name: `Bench ${orgId}`, isRetailer: true, ...(dimensionWhitelist ? { dimensionWhitelist } : {}) },
    }),
    201,
    'create org',
  );
  // An account makes the key's principal carry account ids, as a real retailer's would.
  const { accountId } = expectJson<{ accountId: number }>(
    await api('POST', `/admin/v1/orgs/${orgId}/accounts`, { ...admin, json: { name: 'Bench account' } }),
    201,
    'create account',
  );
  const { apiKey } = expectJson<{ keyId: string; apiKey: string }>(
    await api('POST', '/admin/v1/api-keys', { ...admin, json: { orgId, permissions: ['*'] } }),
    201,
    'create API key',
  );
  return { orgId, apiKey, accountId };
}
