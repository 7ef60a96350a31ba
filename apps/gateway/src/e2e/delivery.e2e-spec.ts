import { randomUUID } from 'node:crypto';
import { DEFAULT_SEGMENT, deliveryEventSubject, type DeliveryEvent, type DeliveryEventType } from '@contracts/domain';
import { connect, type NatsConnection } from 'nats';
import { admin, E2eSystem, expectProblem, Http, httpClient, startE2eSystem } from './e2e-system';

jest.setTimeout(180_000);

interface Counts {
  impressions: number;
  clicks: number;
  ctr: number;
  starts: number;
  completes: number;
  skips: number;
}
interface Row extends Counts {
  day: string | null;
  placementId: number | null;
  mediaPlanId: number | null;
  creative: string | null;
  segment: string | null;
}
interface Report {
  retailCampaignId: number;
  from: string;
  to: string;
  groupBy: string[];
  rows: Row[];
  totals: Counts;
  total: number;
  next: string | null;
  previous: string | null;
}

const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 24 * 3600_000).toISOString().slice(0, 10);

describe('retail campaign delivery over HTTP (ad server events -> JetStream -> content-creative -> gateway)', () => {
  let system: E2eSystem;
  let http: Http;
  let nc: NatsConnection;
  let account: number;
  let otherAccount: number;
  let key: string;
  let viewKey: string;
  let noViewKey: string;
  let foreignKey: string;
  let campaign: number;
  let otherCampaign: number;

  const path = (query = '', accountId = account, campaignId = campaign) => `/v2/accounts/${accountId}/retail-campaigns/${campaignId}/delivery${query}`;
  const read = (query = '', k = key, accountId = account, campaignId = campaign) => http<Report>('GET', path(query, accountId, campaignId), { key: k });

  const event = (type: DeliveryEventType, overrides: Partial<DeliveryEvent> = {}): DeliveryEvent => ({
    id: randomUUID(),
    type,
    occurredAt: new Date().toISOString(),
    accountId: account,
    retailCampaignId: campaign,
    mediaPlanId: 5,
    placementId: 50,
    creative: 'SKU-1',
    segment: DEFAULT_SEGMENT,
    personalized: true,
    ...overrides,
  });
  /** As the ad server publishes: on delivery.<type> under the system's NATS prefix, Nats-Msg-Id the event id unless given. */
  const publish = (e: DeliveryEvent, msgId = e.id) =>
    nc.jetstream().publish(`${system.prefix}${deliveryEventSubject(e.type)}`, Buffer.from(JSON.stringify(e)), { msgID: msgId });

  async function until(query: string, done: (report: Report) => boolean): Promise<Report> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const answer = await read(query);
      expect(answer.status).toBe(200);
      if (done(answer.body)) return answer.body;
      if (Date.now() > deadline) throw new Error(`delivery not counted in time: ${answer.text}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  beforeAll(async () => {
    system = await startE2eSystem('dlv', { services: ['channels-plans', 'content-creative'] });
    http = httpClient(system.baseUrl);
    nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', name: 'delivery-e2e' });
    const a = admin(http);
    const orgId = await a.createOrg({ name: 'Delivery Retail', isRetailer: true });
    account = await a.createAccount(orgId, 'Delivery');
    otherAccount = await a.createAccount(orgId, 'Second');
    key = (await a.createKey({ orgId, permissions: ['*'] })).apiKey;
    viewKey = (await a.createKey({ orgId, permissions: ['RetailCampaigns_View'] })).apiKey;
    noViewKey = (await a.createKey({ orgId, permissions: ['Campaigns_Create'] })).apiKey;
    foreignKey = (await a.createKey({ orgId: await a.createOrg({ name: 'Elsewhere', isRetailer: true }), permissions: ['*'] })).apiKey;
    const create = async (accountId: number, campaignName: string) => {
      const created = await http<{ retailCampaignId: number }>('POST', `/v2/accounts/${accountId}/retail-campaigns`, { key, json: { campaignName } });
      expect(created.status).toBe(201);
      return created.body.retailCampaignId;
    };
    campaign = await create(account, 'Spring sale');
    otherCampaign = await create(otherAccount, 'Elsewhere sale');
  });

  afterAll(async () => {
    await nc?.drain();
    await system?.stop();
  });

  it('answers the counts of the published events per day, with CTR, video counts and totals', async () => {
    const events = [
      event('impression'),
      event('impression'),
      event('impression'),
      event('impression'),
      event('click'),
      event('impression', { occurredAt: `${daysAgo(2)}T08:00:00Z`, placementId: 51, creative: 'SKU-2', segment: 'loyal' }),
      event('start', { placementId: 52, creative: 'video-1' }),
      event('complete', { placementId: 52, creative: 'video-1' }),
      event('skip', { placementId: 52, creative: 'video-1' }),
      // Another campaign's delivery is not this one's.
      event('impression', { accountId: otherAccount, retailCampaignId: otherCampaign }),
    ];
    for (const e of events) await publish(e);
    const report = await until('', (r) => r.totals.impressions === 5 && r.totals.skips === 1);
    expect(report).toMatchObject({ retailCampaignId: campaign, from: daysAgo(29), to: today(), groupBy: ['day'], total: 2, next: null, previous: null });
    expect(report.rows.map((r) => [r.day, r.placementId, r.creative, r.impressions, r.clicks, r.ctr])).toEqual([
      [daysAgo(2), null, null, 1, 0, 0],
      [today(), null, null, 4, 1, 0.25],
    ]);
    expect(report.totals).toMatchObject({ impressions: 5, clicks: 1, ctr: 0.2, starts: 1, completes: 1, skips: 1 });

    const other = await read('', key, otherAccount, otherCampaign);
    expect(other.status).toBe(200);
    expect(other.body.totals.impressions).toBe(1);
  });

  it('groups by placement, creative and segment, in pages whose links work', async () => {
    const query = `?from=${daysAgo(6)}&groupBy=placement,creative,segment&limit=2`;
    const first = await read(query);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ groupBy: ['placement', 'creative', 'segment'], total: 3, previous: null });
    expect(first.body.rows.map((r) => [r.day, r.placementId, r.mediaPlanId, r.creative, r.segment, r.impressions])).toEqual([
      [null, 50, 5, 'SKU-1', DEFAULT_SEGMENT, 4],
      [null, 51, 5, 'SKU-2', 'loyal', 1],
    ]);
    expect(first.body.next).toEqual(expect.stringContaining('offset=2'));
    const second = await http<Report>('GET', first.body.next as string, { key });
    expect(second.status).toBe(200);
    expect(second.body.rows.map((r) => [r.placementId, r.creative, r.starts, r.completes])).toEqual([[52, 'video-1', 1, 1]]);
    expect(second.body.totals).toEqual(first.body.totals);
  });

  it('counts an event once when it is published again under another message id', async () => {
    const before = (await read()).body.totals.clicks;
    const click = event('click');
    await publish(click, `first-${click.id}`);
    await publish(click, `again-${click.id}`);
    const marker = event('impression', { creative: 'marker' });
    await publish(marker);
    const report = await until('?groupBy=creative', (r) => r.rows.some((row) => row.creative === 'marker'));
    expect(report.totals.clicks).toBe(before + 1);
  });

  it('refuses bad dates, a reversed or too long period and a bad groupBy with a problem naming the parameter', async () => {
    const refused = async (query: string, parameter: string, code: string) => {
      const answer = await read(query);
      expectProblem(answer, 400, 'VALIDATION_FAILED');
      expect(answer.body.errors).toEqual([expect.objectContaining({ parameter, code })]);
      return answer;
    };
    await refused('?from=2026-02-30', 'from', 'INVALID_FORMAT');
    await refused('?to=yesterday', 'to', 'INVALID_FORMAT');
    const reversed = await refused('?from=2026-03-02&to=2026-03-01', 'to', 'OUT_OF_RANGE');
    expect(reversed.body.errors?.[0]?.detail).toContain('must not be before from');
    const long = await refused('?from=2024-12-31&to=2026-01-01', 'from', 'OUT_OF_RANGE');
    expect(long.body.errors?.[0]?.detail).toContain('at most 366 days');
    await refused('?groupBy=week', 'groupBy', 'INVALID_FORMAT');
    await refused('?groupBy=day,day', 'groupBy', 'DUPLICATE');
    await refused('?limit=101', 'limit', 'OUT_OF_RANGE');
    // The longest period is 366 days, both ends included.
    expect((await read('?from=2024-01-01&to=2024-12-31')).status).toBe(200);
  });

  it('answers 404 for a campaign not in the account, 403 without RetailCampaigns_View, 404 for another org', async () => {
    expectProblem(await read('', key, account, otherCampaign), 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
    expectProblem(await read('', key, account, 987654), 404, 'RETAIL_CAMPAIGN_NOT_FOUND');
    const denied = await read('', noViewKey);
    expectProblem(denied, 403, 'PERMISSION_DENIED');
    expect(denied.body.requiredPermission).toBe('RetailCampaigns_View');
    expect((await read('', viewKey)).status).toBe(200);
    expectProblem(await read('', foreignKey), 404, 'ACCOUNT_NOT_FOUND');
  });
});
