import type { Principal } from '@platform/grpc';

/**
 * The caller a service spec's test bed acts for (`actingAs` in @platform/service): the writes its
 * services make enter the audit trail under this key, as a client's would under theirs.
 */
export const TEST_PRINCIPAL: Principal = {
  keyId: 'test-key',
  orgId: 'test-org',
  accountIds: [],
  permissions: ['*'],
  org: { isRetailer: false, dimensionWhitelist: [] },
};
