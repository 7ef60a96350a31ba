import { randomUUID } from 'node:crypto';
import { DEFAULT_SEGMENT, DELIVERY_STREAM, deliveryEventSubject, type DeliveryEvent, type DeliveryEventType } from '@contracts/domain';
import { problem } from '@platform/errors';
import { createLogger } from '@platform/logging';
import { DEAD_LETTER_STREAM, ensureStream, naming, type Naming, type RunningConsumer } from '@platform/nats';
import { deletePrefixedStreams, waitUntil } from '@platform/testing';
import { connect, type NatsConnection } from 'nats';
import { openContentCreativeTestBed, rejectionOf, type ContentCreativeTestBed } from '../content-creative.test-support';
import type { ChannelsPlansPeer } from '../peers/channels-plans.peer';
import { decodeDeliveryEvent, startDeliveryCountsConsumer } from './delivery.consumer';
import { utcDay } from './delivery.service';

jest.setTimeout(120_000);

const ACCOUNT = 601;
const CAMPAIGN = 81;
const TODAY = utcDay(new Date());
const daysAgo = (n: number) => utcDay(new Date(Date.now() - n * 24 * 3600_000));

const event = (type: DeliveryEventType, overrides: Partial<DeliveryEvent> = {}): DeliveryEvent => ({
  id: randomUUID(),
  type,
  occurredAt: `${TODAY}T10:00:00.000Z`,
  accountId: ACCOUNT,
  retailCampaignId: CAMPAIGN,
  mediaPlanId: 11,
  placementId: 21,
  creative: 'SKU-1',
  segment: DEFAULT_SEGMENT,
  personalized: false,
  ...overrides,
});

/** The event as the consumer hands it to the fold. */
const record = (e: DeliveryEvent) => decodeDeliveryEvent(Buffer.from(JSON.stringify(e)));

/** channels-plans as the report sees it: the one campaign of the account, any other a 404. */
const channels = (calls: [number, number][] = []): ChannelsPlansPeer => ({
  campaign: async (accountId, retailCampaignId) => {
    calls.push([accountId, retailCampaignId]);
    if (accountId !== ACCOUNT || retailCampaignId !== CAMPAIGN)
      throw problem('RETAIL_CAMPAIGN_NOT_FOUND', `Retail campaign ${retailCampaignId} was not found.`);
    return { retailCampaignId, campaignName: 'Spring', status: 'ACTIVE', templateIdx: null, isAdGroupCampaign: false, isSbt: false, adGroups: [] };
  },
  plan: async () => ({ retailCampaignId: CAMPAIGN, placements: [] }),
});

describe('delivery counts (content-creative, real MariaDB and NATS)', () => {
  let bed: ContentCreativeTestBed;
  let nc: NatsConnection;
  let names: Naming;
  const consumers: RunningConsumer[] = [];
  const logger = createLogger({ service: 'delivery-spec', level: 'silent' });

  const publish = async (e: DeliveryEvent, msgId = e.id) =>
    nc.jetstream().publish(names.subject(deliveryEventSubject(e.type)), Buffer.from(JSON.stringify(e)), { msgID: msgId });
  const seen = async (id: string) => Number(((await bed.db.knex('delivery_events_seen').where({ event_id: id }).count({ n: '*' })) as { n: number }[])[0]?.n);
  const report = (query: { from?: string; to?: string; groupBy?: string; offset?: number; limit?: number } = {}, campaign = CAMPAIGN) =>
    bed.delivery.report({ accountId: ACCOUNT, retailCampaignId: campaign, offset: 0, limit: 25, ...query }, channels());
  const totals = async (from = daysAgo(60)) => (await report({ from, to: TODAY })).totals;

  beforeAll(async () => {
    bed = await openContentCreativeTestBed('delivery');
    nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', name: 'delivery-spec' });
    names = naming(bed.prefix);
    const jsm = await nc.jetstreamManager();
    await ensureStream(jsm, names.streamSpec(DELIVERY_STREAM));
    await ensureStream(jsm, names.streamSpec(DEAD_LETTER_STREAM));
    consumers.push(await startDeliveryCountsConsumer({ nats: nc, names, logger, delivery: bed.delivery }));
  });

  afterAll(async () => {
    await Promise.all(consumers.map((c) => c.stop()));
    await nc?.drain();
    await deletePrefixedStreams(bed.prefix);
    await bed?.close();
  });

  beforeEach(async () => {
    await bed.db.knex('delivery_daily_counts').delete();
  });

  it('counts published events per day, placement, creative and segment, with CTR and video counts', async () => {
    const events = [
      ...Array.from({ length: 3 }, () => event('impression')),
      event('click'),
      event('impression', { occurredAt: `${daysAgo(1)}T23:59:59.999Z` }),
      event('impression', { placementId: 22, creative: 'SKU-2', segment: 'loyal' }),
      event('impression', { placementId: 22, creative: 'SKU-2', segment: 'loyal' }),
      event('click', { placementId: 22, creative: 'SKU-2', segment: 'loyal' }),
      event('start', { placementId: 23, mediaPlanId: 12 }),
      event('firstQuartile', { placementId: 23, mediaPlanId: 12 }),
      event('midpoint', { placementId: 23, mediaPlanId: 12 }),
      event('thirdQuartile', { placementId: 23, mediaPlanId: 12 }),
      event('complete', { placementId: 23, mediaPlanId: 12 }),
      event('mute', { placementId: 23, mediaPlanId: 12 }),
      event('unmute', { placementId: 23, mediaPlanId: 12 }),
      event('skip', { placementId: 23, mediaPlanId: 12 }),
      // Another campaign's event is not this campaign's delivery.
      event('impression', { retailCampaignId: CAMPAIGN + 1 }),
    ];
    for (const e of events) await publish(e);
    const last = events[events.length - 1] as DeliveryEvent;
    await waitUntil(async () => (await seen(last.id)) === 1 && (await totals()).impressions === 6, { what: 'the events to be counted', everyMs: 50 });

    const byDay = await report({ from: daysAgo(1), to: TODAY });
    expect(byDay).toMatchObject({ from: daysAgo(1), to: TODAY, groupBy: ['day'], total: 2 });
    expect(byDay.rows).toEqual([
      { day: daysAgo(1), counts: expect.objectContaining({ impressions: 1, clicks: 0, ctr: 0 }) },
      {
        day: TODAY,
        counts: {
          impressions: 5,
          clicks: 2,
          ctr: 0.4,
          starts: 1,
          firstQuartile: 1,
          midpoint: 1,
          thirdQuartile: 1,
          completes: 1,
          mutes: 1,
          unmutes: 1,
          skips: 1,
        },
      },
    ]);
    expect(byDay.totals).toMatchObject({ impressions: 6, clicks: 2, ctr: 0.3333, starts: 1, skips: 1 });

    const byPlacement = await report({ from: daysAgo(1), groupBy: 'placement,creative,segment' });
    expect(byPlacement.rows.map((r) => [r.placementId, r.mediaPlanId, r.creative, r.segment, r.counts.impressions, r.counts.clicks, r.counts.ctr])).toEqual([
      [21, 11, 'SKU-1', DEFAULT_SEGMENT, 4, 1, 0.25],
      [22, 11, 'SKU-2', 'loyal', 2, 1, 0.5],
      [23, 12, 'SKU-1', DEFAULT_SEGMENT, 0, 0, 0],
    ]);
    expect(byPlacement.rows[0]).not.toHaveProperty('day');

    const bySegment = await report({ from: daysAgo(1), groupBy: 'segment' });
    expect(bySegment.rows.map((r) => [r.segment, r.counts.impressions])).toEqual([
      [DEFAULT_SEGMENT, 4],
      ['loyal', 2],
    ]);

    // Pages of groups; the totals stay those of the whole period.
    const page = await report({ from: daysAgo(1), groupBy: 'placement', offset: 1, limit: 1 });
    expect(page).toMatchObject({ total: 3, totals: { impressions: 6 } });
    expect(page.rows.map((r) => r.placementId)).toEqual([22]);
  });

  it('counts an event once however often it arrives: re-sent, redelivered, or repeated in one batch', async () => {
    const once = event('click');
    // Two publishes JetStream does not recognise as one (as after its duplicate window).
    await publish(once, `a-${once.id}`);
    await publish(once, `b-${once.id}`);
    // Counted before the consumer saw it (as when a fold committed and its ack was lost): the delivery adds nothing.
    const folded = event('impression');
    expect(await bed.delivery.fold([record(folded), record(folded)])).toEqual({ counted: 1, duplicates: 1 });
    await publish(folded);
    const marker = event('impression', { creative: 'marker' });
    await publish(marker);
    await waitUntil(async () => (await seen(marker.id)) === 1, { what: 'the marker to be counted', everyMs: 50 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await totals()).toMatchObject({ impressions: 2, clicks: 1 });
    expect(await bed.delivery.fold([once, folded, marker].map(record))).toEqual({ counted: 0, duplicates: 3 });
    expect(await totals()).toMatchObject({ impressions: 2, clicks: 1 });
  });

  it('keeps exact counts with two consumers sharing the durable, over thousands of events with repeats', async () => {
    consumers.push(await startDeliveryCountsConsumer({ nats: nc, names, logger, delivery: bed.delivery }));
    const events = Array.from({ length: 3000 }, (_, i) =>
      event(i % 10 === 0 ? 'click' : 'impression', { placementId: 30 + (i % 7), creative: `SKU-${i % 13}`, segment: `s${i % 3}` }),
    );
    const started = Date.now();
    const js = nc.jetstream();
    const acks: Promise<unknown>[] = [];
    for (const [i, e] of events.entries()) {
      acks.push(js.publish(names.subject(deliveryEventSubject(e.type)), Buffer.from(JSON.stringify(e)), { msgID: e.id }));
      // Every fifth event is sent again under another message id: the stream keeps both.
      if (i % 5 === 0) acks.push(js.publish(names.subject(deliveryEventSubject(e.type)), Buffer.from(JSON.stringify(e)), { msgID: `again-${e.id}` }));
    }
    await Promise.all(acks);
    await waitUntil(
      async () => {
        const { impressions, clicks } = await totals();
        if (impressions + clicks > 3000) throw new Error(`counted ${impressions + clicks} of 3000`);
        return impressions + clicks === 3000;
      },
      { what: 'every event to be counted', timeoutMs: 60_000, everyMs: 50 },
    ).catch(async (error: Error) => {
      throw new Error(
        `${error.message}: ${JSON.stringify(await totals())}, ${await bed.db
          .knex('delivery_events_seen')
          .count({ n: '*' })
          .then((r) => JSON.stringify(r))}`,
      );
    });
    const elapsed = Date.now() - started;
    // Deliveries beyond the stream's messages are redeliveries (an ack wait that ran out): counted, not asserted.
    const { delivered } = await (await nc.jetstreamManager()).consumers.info(names.stream(DELIVERY_STREAM.name), 'content-creative-delivery-counts');
    process.stdout.write(
      `delivery counts: 3,600 messages (3,000 events) published and folded in ${elapsed} ms, ${delivered.consumer_seq - delivered.stream_seq} redeliveries\n`,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await totals()).toMatchObject({ impressions: 2700, clicks: 300, ctr: 0.1111 });
    const groups = await report({ groupBy: 'placement,creative,segment', limit: 100 });
    expect(groups.total).toBe(273);
  });

  it('defaults to the last 30 days ending today, grouped by day', async () => {
    await bed.delivery.fold([
      record(event('impression')),
      record(event('impression', { occurredAt: `${daysAgo(29)}T00:00:00Z` })),
      record(event('impression', { occurredAt: `${daysAgo(30)}T12:00:00Z` })),
    ]);
    const answer = await report();
    expect(answer).toMatchObject({ from: daysAgo(29), to: TODAY, groupBy: ['day'], total: 2, totals: { impressions: 2 } });
  });

  it('refuses a bad date, to before from, a period over 366 days and a bad groupBy, naming the parameter and rule', async () => {
    const refused = async (query: Parameters<typeof report>[0]) => rejectionOf(report(query));
    expect(await refused({ from: '2026-02-30' })).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      errors: [{ parameter: 'from', code: 'INVALID_FORMAT' }],
    });
    expect(await refused({ to: '26-01-01' })).toMatchObject({ status: 400, errors: [{ parameter: 'to', code: 'INVALID_FORMAT' }] });
    expect(await refused({ from: '2026-03-02', to: '2026-03-01' })).toMatchObject({
      status: 400,
      errors: [{ parameter: 'to', code: 'OUT_OF_RANGE', detail: expect.stringContaining('must not be before from') }],
    });
    expect(await refused({ from: '2024-12-31', to: '2026-01-01' })).toMatchObject({
      status: 400,
      errors: [{ parameter: 'from', code: 'OUT_OF_RANGE', detail: expect.stringContaining('at most 366 days') }],
    });
    // 366 days, both ends included, is the longest period.
    await expect(report({ from: '2024-01-01', to: '2024-12-31' })).resolves.toMatchObject({ total: 0 });
    expect(await refused({ groupBy: 'day,week' })).toMatchObject({ status: 400, errors: [{ parameter: 'groupBy', code: 'NOT_ALLOWED' }] });
    expect(await refused({ groupBy: 'day,day' })).toMatchObject({ status: 400, errors: [{ parameter: 'groupBy', code: 'DUPLICATE' }] });
    expect(await refused({ limit: 101 })).toMatchObject({ status: 400, errors: [{ parameter: 'limit', code: 'OUT_OF_RANGE' }] });
  });

  it("answers channels-plans' 404 for a campaign that is not the account's, after the query's checks", async () => {
    const calls: [number, number][] = [];
    const read = (groupBy?: string) =>
      bed.delivery.report({ accountId: ACCOUNT, retailCampaignId: CAMPAIGN + 5, groupBy, offset: 0, limit: 25 }, channels(calls));
    expect(await rejectionOf(read())).toMatchObject({ status: 404, code: 'RETAIL_CAMPAIGN_NOT_FOUND' });
    expect(calls).toEqual([[ACCOUNT, CAMPAIGN + 5]]);
    expect(await rejectionOf(read('week'))).toMatchObject({ status: 400 });
    expect(calls).toHaveLength(1);
  });

  it('refuses a message that is not a delivery event', () => {
    const bad = (value: unknown) => () => decodeDeliveryEvent(Buffer.from(JSON.stringify(value)));
    expect(bad({ ...event('impression'), type: 'view' })).toThrow('Not a delivery event');
    expect(bad({ ...event('impression'), id: 'x'.repeat(129) })).toThrow('Not a delivery event');
    expect(bad({ ...event('impression'), placementId: '21' })).toThrow('Not a delivery event');
    expect(bad({ ...event('impression'), occurredAt: 'yesterday' })).toThrow('Not a delivery event');
    expect(bad(null)).toThrow('Not a delivery event');
  });

  it('forgets counted ids past their retention only', async () => {
    const old = event('impression');
    const recent = event('impression');
    await bed.delivery.fold([record(old), record(recent)]);
    await bed.db
      .knex('delivery_events_seen')
      .where({ event_id: old.id })
      .update({ seen_at: bed.db.knex.raw('NOW(3) - INTERVAL 9 DAY') });
    expect(await bed.delivery.purgeSeen()).toBeGreaterThanOrEqual(1);
    expect(await seen(old.id)).toBe(0);
    expect(await seen(recent.id)).toBe(1);
  });
});
