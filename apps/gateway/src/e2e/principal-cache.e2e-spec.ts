import { admin, E2eSystem, expectProblem, Http, httpClient, startE2eSystem } from './e2e-system';

jest.setTimeout(120_000);

/**
 * Two gateway replicas (A and B) on one MySQL schema prefix and one NATS prefix, each caching
 * principals. Admin changes go through A; B must reflect them on the very next request.
 */
describe('API-key principal cache across gateway replicas', () => {
  let system: E2eSystem;
  let gatewayA: Http;
  let gatewayB: Http;
  let orgId: string;
  let firstAccount: number;

  const campaigns = (gateway: Http, apiKey: string, accountId = firstAccount) => gateway('GET', `/v2/accounts/${accountId}/retail-campaigns`, { key: apiKey });
  const newKey = () => admin(gatewayA).createKey({ orgId, permissions: ['*'] });
  /** A successful call on each replica leaves the principal in both caches. */
  const useOnBoth = async (apiKey: string) => {
    for (const gateway of [gatewayA, gatewayB, gatewayB]) expect((await campaigns(gateway, apiKey)).status).toBe(200);
  };

  beforeAll(async () => {
    system = await startE2eSystem('pc');
    gatewayA = httpClient(system.baseUrl);
    gatewayB = httpClient(await system.startGatewayReplica());
    orgId = await admin(gatewayA).createOrg({ name: 'Cache Co', isRetailer: true });
    firstAccount = await admin(gatewayA).createAccount(orgId, 'First');
  });

  afterAll(async () => {
    // Replica B, replica A, then channels-plans: each shuts down gracefully and exits 0.
    expect(await system?.stop()).toEqual([0, 0, 0]);
  });

  it('answers repeated calls from the cache: a key revoked behind the admin API keeps working on a replica that cached it', async () => {
    const { keyId, apiKey } = await newKey();
    await useOnBoth(apiKey);
    // No broadcast: this is what only the TTL would bound, and proves B no longer reads MySQL.
    await system.sql('gateway_identity', 'UPDATE api_keys SET revoked_at = CURRENT_TIMESTAMP(3) WHERE key_id = ?', [keyId]);
    expect((await campaigns(gatewayB, apiKey)).status).toBe(200);
  });

  it('refuses a wrong secret for a cached key', async () => {
    const { apiKey } = await newKey();
    await useOnBoth(apiKey);
    const wrong = `${apiKey.slice(0, -1)}${apiKey.endsWith('A') ? 'B' : 'A'}`;
    expectProblem(await campaigns(gatewayB, wrong), 401, 'API_KEY_INVALID');
    expect((await campaigns(gatewayB, apiKey)).status).toBe(200);
  });

  it('refuses a key revoked through replica A on the very next request to replica B', async () => {
    const { keyId, apiKey } = await newKey();
    await useOnBoth(apiKey);
    expect((await admin(gatewayA).revokeKey(keyId)).status).toBe(204);
    expectProblem(await campaigns(gatewayB, apiKey), 401, 'API_KEY_INVALID');
    expectProblem(await campaigns(gatewayA, apiKey), 401, 'API_KEY_INVALID');
  });

  it('lets an all-accounts key reach an account created through replica A at once through replica B', async () => {
    const { apiKey } = await newKey();
    await useOnBoth(apiKey);
    const restricted = await admin(gatewayA).createKey({ orgId, permissions: ['*'], accountIds: [firstAccount] });
    await useOnBoth(restricted.apiKey);

    const secondAccount = await admin(gatewayA).createAccount(orgId, 'Second');
    expect((await campaigns(gatewayB, apiKey, secondAccount)).status).toBe(200);
    // A key limited to its own accounts does not gain the new one.
    expectProblem(await campaigns(gatewayB, restricted.apiKey, secondAccount), 404, 'ACCOUNT_NOT_FOUND');
  });

  it('reports NATS among the readiness checks of each replica', async () => {
    for (const gateway of [gatewayA, gatewayB]) {
      const ready = await gateway<{ checks: Record<string, boolean> }>('GET', '/readyz');
      expect(ready.body.checks).toMatchObject({ nats: true });
    }
  });
});
