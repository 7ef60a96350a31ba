import { admin, E2eSystem, expectProblem, Http, httpClient, startE2eSystem } from './e2e-system';

jest.setTimeout(120_000);

/**
 * Two gateway replicas (A and B) on one MySQL schema prefix and one NATS prefix, each caching
 * principals and cacheable pages. Changes go through one replica; the other must reflect them on the
 * very next request.
 */
describe('caches across gateway replicas', () => {
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

  describe('media-channel list pages', () => {
    let apiKey: string;
    const list = async (gateway: Http) => {
      const page = await gateway<{ mediaChannels: { idx: number; name: string; status: string }[]; total: number }>(
        'GET',
        `/v2/org/${orgId}/retail-media-channels?limit=25`,
        { key: apiKey },
      );
      expect(page.status).toBe(200);
      return page.body;
    };
    const names = async (gateway: Http) => (await list(gateway)).mediaChannels.map((channel) => `${channel.name}:${channel.status}`);
    const create = async (gateway: Http, name: string) => {
      const created = await gateway<{ idx: number }>('POST', `/v2/org/${orgId}/retail-media-channels`, {
        key: apiKey,
        json: { name, adServerId: 'gam', type: 'Off-site', activationConfiguration: { tagGeneration: true, creativeGeneration: false } },
      });
      expect(created.status).toBe(201);
      return created.body.idx;
    };
    /** Lookups of the list route counted by replica A (the one with a metrics port), by outcome. */
    const lookups = async (outcome: string) => {
      const metrics = await (await fetch(system.metricsUrl)).text();
      const line = metrics.split('\n').find((l) => l.startsWith('gateway_response_cache_lookups_total') && l.includes(`outcome="${outcome}"`));
      return line ? Number(line.split(' ').pop()) : 0;
    };

    beforeAll(async () => {
      ({ apiKey } = await newKey());
    });

    it('answers a repeated page from memory: a row changed behind the service stays unseen', async () => {
      const idx = await create(gatewayA, 'Behind');
      const hitsBefore = await lookups('hit');
      for (let read = 0; read < 3; read += 1) expect(await names(gatewayA)).toContain('Behind:Active');
      expect(await lookups('hit')).toBeGreaterThan(hitsBefore);
      // No notice: only the TTL would bound this, and it proves the page did not come from MySQL.
      await system.sql('channels_plans', 'UPDATE media_channels SET name = ? WHERE idx = ?', ['Renamed behind', idx]);
      expect(await names(gatewayA)).toContain('Behind:Active');
    });

    it('shows a change made through one replica on the very next page read through the other', async () => {
      // Both replicas hold the page before each change.
      const warm = async () => {
        for (const gateway of [gatewayA, gatewayB, gatewayA, gatewayB]) await list(gateway);
      };
      await warm();
      const idx = await create(gatewayA, 'Fresh');
      expect(await names(gatewayB)).toContain('Fresh:Active');

      await warm();
      const updated = await gatewayB('PUT', `/v2/org/${orgId}/retail-media-channels/${idx}`, { key: apiKey, json: { status: 'Inactive' } });
      expect(updated.status).toBe(200);
      expect(await names(gatewayA)).toContain('Fresh:Inactive');

      await warm();
      const before = await list(gatewayB);
      expect((await gatewayA('DELETE', `/v2/org/${orgId}/retail-media-channels/${idx}`, { key: apiKey })).status).toBe(200);
      const after = await list(gatewayB);
      expect(after.mediaChannels.map((channel) => channel.idx)).not.toContain(idx);
      expect(after.total).toBe(before.total - 1);
    });

    it("keeps each org's pages apart", async () => {
      const otherOrg = await admin(gatewayA).createOrg({ name: 'Other Co', isRetailer: false });
      const other = await admin(gatewayA).createKey({ orgId: otherOrg, permissions: ['*'] });
      await list(gatewayB);
      const page = await gatewayB<{ mediaChannels: unknown[]; total: number }>('GET', `/v2/org/${otherOrg}/retail-media-channels?limit=25`, {
        key: other.apiKey,
      });
      expect([page.status, page.body.total, page.body.mediaChannels]).toEqual([200, 0, []]);
    });
  });

  describe('template search pages', () => {
    let apiKey: string;
    const searchPath = (accountId = firstAccount) => `/v2/accounts/${accountId}/retail-campaigns/retail-templates?limit=25`;
    const search = async (gateway: Http, filters: Record<string, unknown>, accountId = firstAccount) => {
      const page = await gateway<{ count: number; templates: { templateIdx: number; templateName: string }[] }>('POST', searchPath(accountId), {
        key: apiKey,
        json: filters,
      });
      expect(page.status).toBe(200);
      return page.body;
    };
    const names = async (gateway: Http, filters: Record<string, unknown>, accountId = firstAccount) =>
      (await search(gateway, filters, accountId)).templates.map((t) => t.templateName);
    const createCustom = async (gateway: Http, templateName: string, accountId = firstAccount) => {
      const created = await gateway<{ templateIdx: number }>('POST', `/v2/accounts/${accountId}/retail-campaigns/retail-templates/custom`, {
        key: apiKey,
        json: {
          templateName,
          retailerId: 4242,
          inventoryType: 'onsite',
          adFormat: 'Display Banner',
          sourceOfProductInformation: 'Hybrid',
          productSelectionMethod: 'Fixed Product Selection',
          creativeStyle: ['Static Banner'],
          category: ['Garden'],
          templateType: ['Custom'],
          layouts: [
            {
              dimension: '300x250',
              backgroundColor: '#ffffff',
              logo: { x: 10, y: 10, w: 80, h: 20 },
              productImage: { x: 10, y: 40, w: 280, h: 110 },
              headline: { box: { x: 10, y: 160, w: 280, h: 24 }, color: '#111111', fontSize: 18, text: 'Grow more' },
              price: { box: { x: 10, y: 190, w: 100, h: 20 }, color: '#cc0000', fontSize: 16, text: '$4.99' },
              callToAction: { box: { x: 170, y: 210, w: 120, h: 30 }, color: '#ffffff', backgroundColor: '#2e7d32', fontSize: 14, text: 'Shop now' },
            },
          ],
        },
      });
      expect(created.status).toBe(201);
      return created.body.templateIdx;
    };
    const mine = { ownership: 'Custom', retailerId: 4242 };
    const warm = async (filters: Record<string, unknown>) => {
      for (const gateway of [gatewayA, gatewayB, gatewayA, gatewayB]) await search(gateway, filters);
    };

    beforeAll(async () => {
      ({ apiKey } = await newKey());
    });

    it('answers a repeated search from memory, keyed by its filters: a row changed behind the service stays unseen', async () => {
      const templateIdx = await createCustom(gatewayA, 'Behind the cache');
      expect(await names(gatewayA, mine)).toContain('Behind the cache');
      await system.sql('templates', 'UPDATE templates SET template_name = ? WHERE template_idx = ?', ['Renamed behind', templateIdx]);
      expect(await names(gatewayA, mine)).toContain('Behind the cache');
      // Other filters are another page: read from the service, so the row as it now is.
      expect(await names(gatewayA, { ...mine, category: ['Garden'] })).toContain('Renamed behind');
    });

    it("shows an account's template and bookmark changes made through one replica on the next search through the other", async () => {
      await warm(mine);
      const templateIdx = await createCustom(gatewayA, 'Fresh template');
      expect(await names(gatewayB, mine)).toContain('Fresh template');

      await warm({ isBookmarked: true });
      const marked = await gatewayB('PUT', `/v2/accounts/${firstAccount}/retail-campaigns/retail-templates/${templateIdx}/bookmark`, { key: apiKey });
      expect(marked.status).toBe(200);
      expect((await search(gatewayA, { isBookmarked: true })).templates.map((t) => t.templateIdx)).toContain(templateIdx);

      await warm(mine);
      const deleted = await gatewayA('DELETE', `/v2/accounts/${firstAccount}/retail-campaigns/retail-templates/${templateIdx}`, { key: apiKey });
      expect(deleted.status).toBe(200);
      expect(await names(gatewayB, mine)).not.toContain('Fresh template');
    });

    it("keeps each account's pages apart", async () => {
      const otherAccount = await admin(gatewayA).createAccount(orgId, 'Templates elsewhere');
      await warm(mine);
      expect(await search(gatewayB, mine, otherAccount)).toMatchObject({ count: 0, templates: [] });
    });
  });

  it('reports NATS among the readiness checks of each replica', async () => {
    for (const gateway of [gatewayA, gatewayB]) {
      const ready = await gateway<{ checks: Record<string, boolean> }>('GET', '/readyz');
      expect(ready.body.checks).toMatchObject({ nats: true });
    }
  });
});
