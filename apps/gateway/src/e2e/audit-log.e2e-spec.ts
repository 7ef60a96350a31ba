import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedS3, type EmbeddedS3 } from '@platform/s3';
import { ROUTE_TABLE } from '../routes/route-table';
import type { RouteSpec } from '../routes/route.types';
import { admin, E2eSystem, expectProblem, Http, httpClient, startE2eSystem } from './e2e-system';

jest.setTimeout(180_000);

const CUSTOMER_BUCKET = 'audit-customer';
/** Values that must never appear in the trail: a remote source's URL password and token (and the cloud keys, S3RVER). */
const URL_PASSWORD = 'hunter2-audit';
const URL_TOKEN = 'tok-audit-123';

interface Entry {
  id: string;
  occurredAt: string;
  actor: { type: string; keyId: string; userId?: string };
  action: string;
  resourceType: string;
  resourceId: string;
  accountId: number | null;
  orgId: string;
  requestId: string | null;
  operation: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  changedFields: string[];
}
interface AuditPage {
  entries: Entry[];
  total: number;
  next: string | null;
  previous: string | null;
}

describe('audit trail over HTTP (services -> outbox -> JetStream -> storage-library audit_log -> gateway)', () => {
  let system: E2eSystem;
  let http: Http;
  let s3: EmbeddedS3;
  let s3Dir: string;
  let orgId: string;
  let accountA: number;
  let accountB: number;
  let fullKey: string;
  let fullKeyId: string;
  let keyB: string;
  let noAuditKey: string;

  /** A write sent with an X-Request-Id of our own, so its entries can be found by it. */
  const write = async (method: string, path: string, json: unknown, requestId: string) => {
    const result = await http(method, path, { key: fullKey, json, headers: { 'x-request-id': requestId } });
    expect(result.headers.get('x-request-id')).toBe(requestId);
    return result;
  };

  const accountLog = (query: Record<string, string> = {}, key = fullKey, account = accountA) =>
    http<AuditPage>('GET', `/v2/accounts/${account}/audit-log?${new URLSearchParams(query)}`, { key });
  const orgLog = (query: Record<string, string> = {}, key = fullKey) =>
    http<AuditPage>('GET', `/v2/org/${orgId}/audit-log?${new URLSearchParams(query)}`, { key });

  /** Entries are folded from events: wait until the read shows `count` of them. */
  async function eventually(read: () => Promise<{ status: number; body: AuditPage }>, count: number): Promise<Entry[]> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const result = await read();
      expect(result.status).toBe(200);
      if (result.body.entries.length >= count) return result.body.entries;
      if (Date.now() > deadline) throw new Error(`audit log shows ${result.body.entries.length} of ${count} entries: ${JSON.stringify(result.body)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  beforeAll(async () => {
    s3Dir = await mkdtemp(join(tmpdir(), 'audit-e2e-'));
    s3 = await startEmbeddedS3({ port: 0, directory: s3Dir });
    const { hostname, port } = new URL(s3.endpoint);
    const customer = s3.client();
    await customer.makeBucket(CUSTOMER_BUCKET, 'us-east-1');
    system = await startE2eSystem('au', {
      services: ['channels-plans', 'storage-library', 'asset-sources', 'content-creative', 'tagging-trackers', 'templates'],
      env: { S3_ENDPOINT: s3.endpoint, S3_BUCKET: 'audit-library', OUTBOUND_ALLOWLIST: `${hostname}:${port}` },
    });
    http = httpClient(system.baseUrl);
    const a = admin(http);
    orgId = await a.createOrg({ name: 'Audit Retail', isRetailer: true });
    accountA = await a.createAccount(orgId, 'Audit A');
    accountB = await a.createAccount(orgId, 'Audit B');
    const full = await a.createKey({ orgId, accountIds: [accountA], permissions: ['*'] });
    fullKey = full.apiKey;
    fullKeyId = full.keyId;
    keyB = (await a.createKey({ orgId, accountIds: [accountB], permissions: ['*'] })).apiKey;
    noAuditKey = (await a.createKey({ orgId, accountIds: [accountA], permissions: ['CloudStorage_Edit', 'CloudStorage_View', 'MediaChannel_All'] })).apiKey;
  });

  afterAll(async () => {
    await system?.stop();
    await s3?.close();
    if (s3Dir) await rm(s3Dir, { recursive: true, force: true });
  });

  describe('a cloud service (storage-library): create, rename, delete', () => {
    let serviceId: number;
    let entries: Entry[];

    beforeAll(async () => {
      const created = await write(
        'POST',
        `/accounts/${accountA}/cloud`,
        {
          name: 'Audited bucket',
          serviceType: 'objstore',
          rootDir: `${CUSTOMER_BUCKET}/root`,
          accessKey: 'S3RVER',
          secreteKey: 'S3RVER',
          endpoint: s3.endpoint,
        },
        'req-audit-cloud-create',
      );
      expect(created.status).toBe(200);
      serviceId = (created.body as { id: number }).id;
      expect((await write('PUT', `/accounts/${accountA}/cloud/${serviceId}`, { name: 'Renamed bucket' }, 'req-audit-cloud-rename')).status).toBe(204);
      expect((await write('DELETE', `/accounts/${accountA}/cloud/${serviceId}`, undefined, 'req-audit-cloud-delete')).status).toBeLessThan(300);
      entries = await eventually(() => accountLog({ resourceType: 'cloud-service', resourceId: String(serviceId) }), 3);
    });

    it('records each change newest first, with the actor key, the request id of the write and the operation', () => {
      expect(entries.map((e) => [e.action, e.requestId, e.operation])).toEqual([
        ['delete', 'req-audit-cloud-delete', 'DeleteCloudService'],
        ['update', 'req-audit-cloud-rename', 'RenameCloudService'],
        ['create', 'req-audit-cloud-create', 'CreateCloudService'],
      ]);
      for (const entry of entries) {
        expect(entry).toMatchObject({ actor: { type: 'api-key', keyId: fullKeyId }, accountId: accountA, orgId, resourceType: 'cloud-service' });
      }
    });

    it('keeps the record before and after each change, and the fields that changed', () => {
      const [deleted, renamed, created] = entries;
      expect(created).toMatchObject({ before: null, after: { id: serviceId, name: 'Audited bucket', bucket: CUSTOMER_BUCKET, prefix: 'root' } });
      expect(renamed).toMatchObject({ before: { name: 'Audited bucket' }, after: { name: 'Renamed bucket' }, changedFields: ['name'] });
      expect(deleted).toMatchObject({ before: { name: 'Renamed bucket' }, after: null });
    });

    it('never keeps the credentials', () => {
      expect(entries[2]?.after?.sealedCredentials).toBe('[REDACTED]');
      expect(JSON.stringify(entries)).not.toMatch(/S3RVER/);
    });
  });

  describe('a remote asset source and its label (asset-sources)', () => {
    let sourceId: number;
    let entries: Entry[];

    beforeAll(async () => {
      const created = await write(
        'POST',
        `/v2/accounts/${accountA}/asset-sources/remote`,
        {
          assetSourceName: 'Prices',
          url: `https://feed:${URL_PASSWORD}@feeds.example.com/prices.csv?token=${URL_TOKEN}`,
          httpMethod: 'GET',
          additionalParams: `region=eu&apiKey=${URL_TOKEN}`,
          cacheTime: 300,
          columnNames: ['sku', 'price'],
          assetKeyColumn: 'sku',
          contentType: 'csv',
        },
        'req-audit-source-create',
      );
      expect(created.status).toBe(201);
      sourceId = (created.body as { id: number }).id;
      expect((await write('POST', `/v2/accounts/${accountA}/asset-sources/${sourceId}/labels`, { label: 'spring' }, 'req-audit-label-add')).status).toBe(201);
      expect((await write('DELETE', `/v2/accounts/${accountA}/asset-sources/${sourceId}/labels`, { label: 'spring' }, 'req-audit-label-delete')).status).toBe(
        200,
      );
      entries = await eventually(() => accountLog({ requestId: 'req-audit-source-create' }), 1);
    });

    it('records the source with its settings, the password and token of its URL and parameters hidden', () => {
      expect(entries).toHaveLength(1);
      const [created] = entries;
      expect(created).toMatchObject({ action: 'create', resourceType: 'asset-source', resourceId: String(sourceId), operation: 'CreateRemoteSource' });
      expect(created?.after).toMatchObject({ assetSourceName: 'Prices', remote: { httpMethod: 'GET', cacheTime: 300 } });
      expect(JSON.stringify(created)).not.toContain(URL_PASSWORD);
      expect(JSON.stringify(created)).not.toContain(URL_TOKEN);
    });

    it('records a label added and removed', async () => {
      const labels = await eventually(() => accountLog({ resourceType: 'asset-source-label' }), 2);
      expect(labels.map((e) => [e.action, e.requestId, e.resourceId])).toEqual([
        ['delete', 'req-audit-label-delete', `${sourceId}:spring`],
        ['create', 'req-audit-label-add', `${sourceId}:spring`],
      ]);
    });
  });

  describe('a media channel (channels-plans): the org-level trail', () => {
    let idx: number;
    let entries: Entry[];

    beforeAll(async () => {
      const channels = `/v2/org/${orgId}/retail-media-channels`;
      const created = await write(
        'POST',
        channels,
        {
          name: 'Audited channel',
          adServerId: 'gam',
          type: 'Off-site',
          activationConfiguration: { tagGeneration: true, creativeGeneration: false },
          additionalConfiguration: { networkCode: '1234', apiKey: 'channel-secret-1' },
        },
        'req-audit-channel-create',
      );
      expect(created.status).toBe(201);
      idx = (created.body as { idx: number }).idx;
      expect((await write('PUT', `${channels}/${idx}`, { status: 'Inactive' }, 'req-audit-channel-update')).status).toBe(200);
      expect((await write('DELETE', `${channels}/${idx}`, undefined, 'req-audit-channel-delete')).status).toBe(200);
      entries = await eventually(() => orgLog({ resourceType: 'media-channel' }), 3);
    });

    it('records the org resource on the org trail, not on an account', async () => {
      expect(entries.map((e) => [e.action, e.requestId, e.accountId])).toEqual([
        ['delete', 'req-audit-channel-delete', null],
        ['update', 'req-audit-channel-update', null],
        ['create', 'req-audit-channel-create', null],
      ]);
      expect((await accountLog({ resourceType: 'media-channel' })).body.entries).toEqual([]);
    });

    it('keeps the status before and after, and hides a secret inside the free-form configuration', () => {
      const update = entries[1];
      expect(update).toMatchObject({ before: { status: 'Active' }, after: { status: 'Inactive' } });
      expect(update?.changedFields).toContain('status');
      expect(JSON.stringify(entries)).not.toContain('channel-secret-1');
    });
  });

  describe('one write of each other service: a retail campaign, a tag variable map, a Custom template, a dynamic campaign', () => {
    /** The documented request of an operation: what its route's example sends. */
    const exampleOf = (operationId: string) => (ROUTE_TABLE.find((route) => route.operationId === operationId) as RouteSpec).example?.request;
    let campaignId: number;
    let mapIdx: number;
    let templateIdx: number;
    let dynamicCampaignId: number;

    beforeAll(async () => {
      const campaign = await write('POST', `/v2/accounts/${accountA}/retail-campaigns`, { campaignName: 'Audited campaign' }, 'req-audit-campaign');
      expect(campaign.status).toBe(201);
      campaignId = (campaign.body as { retailCampaignId: number }).retailCampaignId;
      const map = await write(
        'POST',
        `/v2/accounts/${accountA}/campaign/${campaignId}/tagVariablesMap`,
        exampleOf('createTagVariableMap'),
        'req-audit-tag-variable-map',
      );
      expect(map.status).toBe(201);
      mapIdx = (map.body as { idx: number }).idx;
      const template = await write(
        'POST',
        `/v2/accounts/${accountA}/retail-campaigns/retail-templates/custom`,
        exampleOf('createRetailTemplate'),
        'req-audit-template',
      );
      expect(template.status).toBe(201);
      templateIdx = (template.body as { templateIdx: number }).templateIdx;
      // The documented campaign without its asset-source references (the account has no such sources).
      const dynamic = await write(
        'POST',
        `/v2/accounts/${accountA}/campaigns`,
        { ...(exampleOf('createDynamicCampaign') as object), assetMap: [], decisionMap: [] },
        'req-audit-dynamic-campaign',
      );
      expect(dynamic.status).toBe(201);
      dynamicCampaignId = Number((dynamic.body as { campaignId: string }).campaignId);
    });

    it.each([
      ['req-audit-campaign', 'retail-campaign', 'CreateRetailCampaign', () => campaignId],
      ['req-audit-tag-variable-map', 'tag-variable-map', 'CreateTagVariableMap', () => mapIdx],
      ['req-audit-template', 'custom-template', 'CreateTemplate', () => templateIdx],
      ['req-audit-dynamic-campaign', 'dynamic-campaign', 'CreateDynamicCampaign', () => dynamicCampaignId],
    ])('records the write of %s as a %s created by %s', async (requestId, resourceType, operation, id) => {
      const [entry] = await eventually(() => accountLog({ requestId }), 1);
      expect(entry).toMatchObject({ action: 'create', resourceType, resourceId: String(id()), operation, actor: { keyId: fullKeyId }, before: null });
      expect(entry?.after).toEqual(expect.any(Object));
    });
  });

  describe('reading', () => {
    it('filters by action, actor and time, and pages with links', async () => {
      const all = await accountLog({ limit: '100' });
      expect(all.body.total).toBeGreaterThanOrEqual(6);
      const times = all.body.entries.map((e) => e.occurredAt);
      expect([...times].sort().reverse()).toEqual(times);

      const deletes = await accountLog({ action: 'delete' });
      expect(deletes.body.entries.length).toBeGreaterThan(0);
      expect(deletes.body.entries.every((e) => e.action === 'delete')).toBe(true);

      expect((await accountLog({ actor: fullKeyId })).body.total).toBe(all.body.total);
      expect((await accountLog({ actor: 'someone-else' })).body.total).toBe(0);

      const newest = all.body.entries[0] as Entry;
      const oldest = all.body.entries[all.body.entries.length - 1] as Entry;
      expect((await accountLog({ from: newest.occurredAt })).body.entries[0]?.id).toBe(newest.id);
      expect((await accountLog({ to: oldest.occurredAt })).body.entries.find((e) => e.id === oldest.id)).toBeUndefined();

      const first = await accountLog({ limit: '2' });
      expect(first.body.entries).toEqual(all.body.entries.slice(0, 2));
      expect(first.body.previous).toBeNull();
      const second = await http<AuditPage>('GET', first.body.next as string, { key: fullKey });
      expect(second.body.entries).toEqual(all.body.entries.slice(2, 4));
    });

    it('refuses bad filters with 400 naming each parameter', async () => {
      const bad = await accountLog({ action: 'rename', resourceType: 'nothing', from: 'yesterday' });
      expectProblem(bad, 400, 'VALIDATION_FAILED');
      expect((bad.body.errors ?? []).map((e) => e.parameter).sort()).toEqual(['action', 'from', 'resourceType']);
      const backwards = await accountLog({ from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' });
      expectProblem(backwards, 400, 'VALIDATION_FAILED');
      expect(backwards.body.errors?.[0]).toMatchObject({ parameter: 'to' });
    });

    it("shows another account nothing of this one's, and needs its permission", async () => {
      expect((await accountLog({}, keyB, accountB)).body.entries).toEqual([]);
      expectProblem(await accountLog({}, keyB), 404, 'ACCOUNT_NOT_FOUND');
      const forbidden = await accountLog({}, noAuditKey);
      expectProblem(forbidden, 403, 'PERMISSION_DENIED');
      expect(forbidden.body.requiredPermission).toBe('AuditLog_View');
    });
  });
});
