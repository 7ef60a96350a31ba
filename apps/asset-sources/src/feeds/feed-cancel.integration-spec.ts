import type { ServerResponse } from 'node:http';
import { createLogger } from '@platform/logging';
import { waitUntil, writeEndlessCsv } from '@platform/testing';
import { decodeJobProgress, directSink, JobHandedBack, JobStatus, type JobProgressSink, type JobRequest } from '@platform/jobs';
import { openAssetSourcesTestBed, rejectionOf, type AssetSourcesTestBed } from '../asset-sources.test-support';
import { feedIngestJob } from './feed-ingest.job';
import type { FeedReader } from './feed-reading';
import { FEED_INGEST_KIND, type FeedIngestPayload, type FeedSourceInput } from './feed-source.model';
import { httpFeedReader, startFeedHttpServer, type FeedHttpServer } from './reading/feed-test-servers';

jest.setTimeout(60_000);

const logger = createLogger({ service: 'feed-cancel-test', level: 'silent' });
const ACCOUNT = 7101;
const HEADER = 'sku,name,price\n';
const products = (n: number) => Array.from({ length: n }, (_, i) => `P${i},Product ${i},${i % 50}.99\n`).join('');

/** Feeds by path; `/drip.csv` sends 200 rows every 20 ms and never ends on its own, as `/switch.csv` does while `switchDrips`. */
const feeds = new Map<string, string>();
let switchDrips = false;
const drips = new Set<ServerResponse>();
let dripClosed = false;

describe('cancelling a feed run (extension)', () => {
  let bed: AssetSourcesTestBed;
  let server: FeedHttpServer;
  const sink: JobProgressSink = directSink();

  beforeAll(async () => {
    server = await startFeedHttpServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (path === '/drip.csv' || (path === '/switch.csv' && switchDrips)) {
        drips.add(res);
        writeEndlessCsv(
          res,
          HEADER,
          (n) => `D${n},Drip ${n},1.00\n`,
          () => {
            drips.delete(res);
            dripClosed = true;
          },
        );
        return;
      }
      const body = feeds.get(path);
      if (body === undefined) return void res.writeHead(404).end('no such feed');
      res.writeHead(200, { 'content-type': 'text/csv' }).end(body);
    });
    bed = await openAssetSourcesTestBed('feedcancel', { feedRunCap: 1_000 });
  });

  afterAll(async () => {
    for (const res of drips) res.destroy();
    await bed?.close();
    await server?.close();
  });

  const input = (path: string): FeedSourceInput => ({
    definition: {
      assetSourceName: 'Products',
      columnNames: ['sku', 'name', 'price'],
      columns: { assetKeyColumn: 'sku', assetVariantColumn: null, assetGroupColumn: null, reportingColumn: null, rotationWeightColumn: null },
      contentType: null,
    },
    location: { urlType: 'http', url: `${server.origin}${path}`, fileId: null, urlConfig: { httpMethod: 'GET' } },
    secrets: {},
    format: { contentType: 'csv', characterEncoding: 'UTF_8', csvSeparator: 'comma', firstRowIsHeader: true, cdp: false, customCode: null, feedConfig: null },
    schedule: { isScheduled: false, frequency: null, startTime: null, endDate: null },
    policies: {},
  });
  const job = (reader: FeedReader = httpFeedReader([server.hostPort], { timeoutMs: 60_000, maxBytes: 64 * 1024 * 1024 })) =>
    feedIngestJob({ db: bed.db, reader, ...bed.feedStore, feedSources: bed.feedSources, assetSources: bed.assetSources, logger });
  const request = (queueId: string, assetSourceId: number): JobRequest<FeedIngestPayload> => ({
    queueId,
    accountId: ACCOUNT,
    kind: FEED_INGEST_KIND,
    payload: { assetSourceId },
  });
  /** Runs the job and its clean-up, as the job runner does; answers the failure, or undefined when it completed. */
  const runJob = async (queueId: string, assetSourceId: number, reader?: FeedReader, runSink = sink) => {
    const handler = job(reader);
    const failure = await handler.run(request(queueId, assetSourceId), runSink).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    await handler.cleanup?.(request(queueId, assetSourceId));
    return failure;
  };
  const runOf = async (queueId: string) => (await bed.feedSources.report([ACCOUNT], queueId, { line: 0, seq: 0 }, 1)).run;
  /** Rows of the source in storage, of every generation: what a cancelled run must not leave behind. */
  const storedRows = async (assetSourceId: number) =>
    Number((await bed.db.knex('asset_source_rows').where({ asset_source_id: assetSourceId }).count({ n: '*' }))[0].n);
  /** The messages of the Failed progress events the outbox holds for a run of the account. */
  const endedInOutbox = async (queueId: string) => {
    const events = (await bed.db
      .knex('outbox')
      .where({ subject: `${bed.prefix}jobs.progress.${FEED_INGEST_KIND}` })
      .select('payload')) as { payload: Buffer }[];
    return events
      .map((e) => decodeJobProgress(e.payload))
      .filter((e) => e.queueId === queueId && e.accountId === ACCOUNT && e.status === JobStatus.JOB_STATUS_FAILED)
      .map((e) => e.message);
  };
  /** A source serving `n` rows from its first run. */
  const servingSource = async (n: number) => {
    const path = `/serving-${n}-${Math.random().toString(36).slice(2)}.csv`;
    feeds.set(path, HEADER + products(n));
    const created = await bed.feedSources.create(ACCOUNT, input(path));
    expect(await runJob(created.queueId, created.assetSourceId)).toBeUndefined();
    return { ...created, path };
  };

  it('ends a queued run at once, its queue Failed through the outbox, and the worker then reads nothing', async () => {
    feeds.set('/queued.csv', HEADER + products(3));
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/queued.csv'));

    const cancelled = await bed.feedSources.cancelRun(ACCOUNT, queueId);
    expect(cancelled).toMatchObject({ status: 'Cancelled', message: expect.stringMatching(/^Cancelled by the owner before it started/) });
    expect(cancelled.cancelRequestedAt).toBeInstanceOf(Date);
    expect(cancelled.finishedAt).toBeInstanceOf(Date);
    expect(await endedInOutbox(queueId)).toEqual([cancelled.message]);

    const fetchedBefore = server.requests.length;
    expect((await runJob(queueId, assetSourceId))?.message).toBe(cancelled.message);
    expect(server.requests.length).toBe(fetchedBefore);
    expect((await bed.assetSources.get(ACCOUNT, assetSourceId)).rowCount).toBe(0);
    expect((await rejectionOf(bed.feedSources.cancelRun(ACCOUNT, queueId))).code).toBe('FEED_RUN_ENDED');
  });

  it('stops a running run within about a second: its transfer closed, nothing it read served or kept', async () => {
    const { assetSourceId } = await servingSource(3);
    const update = await bed.feedSources.replace(ACCOUNT, assetSourceId, input('/drip.csv'));
    dripClosed = false;
    const running = runJob(update.queueId, assetSourceId);
    // Rows are flowing into the run's generation.
    await waitUntil(async () => (await storedRows(assetSourceId)) > 3, { what: 'rows of the run to be stored' });

    const requested = await bed.feedSources.cancelRun(ACCOUNT, update.queueId);
    expect(requested).toMatchObject({ status: 'Processing' });
    expect(requested.cancelRequestedAt).toBeInstanceOf(Date);
    const startedAt = Date.now();
    const failure = await running;
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(failure?.message).toMatch(/^Cancelled by the owner before this version was served/);
    expect(dripClosed).toBe(true);
    // It says how far it got: at least the rows seen stored before the cancel.
    const ended = await runOf(update.queueId);
    expect(ended).toMatchObject({ status: 'Cancelled', finishedAt: expect.any(Date) });
    expect(ended.rowsRead).toBeGreaterThan(0);
    expect((await bed.assetSources.get(ACCOUNT, assetSourceId)).rowCount).toBe(3);
    expect(await storedRows(assetSourceId)).toBe(3);
    expect((await rejectionOf(bed.feedSources.cancelRun(ACCOUNT, update.queueId))).code).toBe('FEED_RUN_ENDED');
  });

  it('a cancel that lands after the last row is read still wins over the swap: the old rows keep serving', async () => {
    const { assetSourceId, path } = await servingSource(3);
    feeds.set(path, HEADER + products(8));
    const update = await bed.feedSources.replace(ACCOUNT, assetSourceId, input(path));
    // The owner cancels while the feed is being opened: it is read whole well before the run's first look for a cancel.
    const base = httpFeedReader([server.hostPort]);
    const reader: FeedReader = {
      ...base,
      open: async (...args) => {
        await bed.feedSources.cancelRun(ACCOUNT, update.queueId);
        return base.open(...args);
      },
    };
    expect((await runJob(update.queueId, assetSourceId, reader))?.message).toMatch(/^Cancelled by the owner/);
    expect((await runOf(update.queueId)).status).toBe('Cancelled');
    expect((await bed.assetSources.get(ACCOUNT, assetSourceId)).rowCount).toBe(3);
    expect(await storedRows(assetSourceId)).toBe(3);
  });

  it('a run redelivered after a crash and cancelled meanwhile ends without reading the feed', async () => {
    const { assetSourceId, path } = await servingSource(3);
    const update = await bed.feedSources.replace(ACCOUNT, assetSourceId, input(path));
    // As a worker that died mid-run left it: Processing.
    await bed.feedStore.feeds.saveRun(undefined, update.queueId, { status: 'Processing', message: 'Processing' });
    expect((await bed.feedSources.cancelRun(ACCOUNT, update.queueId)).status).toBe('Processing');
    const fetchedBefore = server.requests.length;
    expect((await runJob(update.queueId, assetSourceId))?.message).toMatch(/^Cancelled by the owner/);
    expect(server.requests.length).toBe(fetchedBefore);
    expect((await runOf(update.queueId)).status).toBe('Cancelled');
  });

  it('an update supersedes the runs of the old settings: a running one stops, a queued one ends at once, each naming the new run', async () => {
    const { assetSourceId, path } = await servingSource(3);
    const slow = await bed.feedSources.replace(ACCOUNT, assetSourceId, input('/drip.csv'));
    dripClosed = false;
    const running = runJob(slow.queueId, assetSourceId);
    await waitUntil(async () => (await storedRows(assetSourceId)) > 3, { what: 'rows of the run to be stored' });

    feeds.set(path, HEADER + products(5));
    const fixed = await bed.feedSources.replace(ACCOUNT, assetSourceId, input(path));
    expect((await running)?.message).toBe(
      `Superseded by run ${fixed.queueId} (an update of the feed's settings) before this version was served. The rows already serving are unchanged.`,
    );
    expect(dripClosed).toBe(true);
    expect(await runOf(slow.queueId)).toMatchObject({ status: 'Cancelled', supersededBy: fixed.queueId, cancelRequestedAt: expect.any(Date) });
    expect(await runJob(fixed.queueId, assetSourceId)).toBeUndefined();
    expect((await bed.assetSources.get(ACCOUNT, assetSourceId)).rowCount).toBe(5);
    expect(await storedRows(assetSourceId)).toBe(5);

    // A run still queued when the next update comes ends at once, its queue Failed through the outbox.
    const queued = await bed.feedSources.replace(ACCOUNT, assetSourceId, input(path));
    const next = await bed.feedSources.replace(ACCOUNT, assetSourceId, input(path));
    expect(await runOf(queued.queueId)).toMatchObject({
      status: 'Cancelled',
      supersededBy: next.queueId,
      message: `Superseded by run ${next.queueId} (an update of the feed's settings) before it started. The rows already serving are unchanged.`,
    });
    expect(await endedInOutbox(queued.queueId)).toEqual([expect.stringMatching(/^Superseded by run/)]);
    expect(await runOf(next.queueId)).toMatchObject({ status: 'Queued', supersededBy: null });
    expect(await runJob(next.queueId, assetSourceId)).toBeUndefined();
  });

  it('discards a held version: its rows dropped, nothing held, the rows serving unchanged', async () => {
    const { assetSourceId, path } = await servingSource(10);
    feeds.set(path, HEADER + products(2));
    const shrunk = await bed.feedSources.replace(ACCOUNT, assetSourceId, input(path));
    expect((await runJob(shrunk.queueId, assetSourceId))?.message).toMatch(/^Held/);
    expect(await storedRows(assetSourceId)).toBe(12);

    const discarded = await bed.feedSources.cancelRun(ACCOUNT, shrunk.queueId);
    expect(discarded).toMatchObject({ status: 'Cancelled', message: expect.stringMatching(/^Discarded by the owner: the held version \(2 rows\)/) });
    expect((await bed.feedSources.settings(assetSourceId))?.held).toBeNull();
    expect(await storedRows(assetSourceId)).toBe(10);
    expect((await bed.assetSources.get(ACCOUNT, assetSourceId)).rowCount).toBe(10);
    expect((await rejectionOf(bed.feedSources.confirmHeld(ACCOUNT, assetSourceId))).code).toBe('FEED_NOTHING_HELD');
  });

  it("answers not found for another account's run and an unknown one, and changes nothing", async () => {
    feeds.set('/other.csv', HEADER + products(1));
    const { queueId } = await bed.feedSources.create(ACCOUNT, input('/other.csv'));
    expect((await rejectionOf(bed.feedSources.cancelRun(ACCOUNT + 1, queueId))).code).toBe('FEED_RUN_NOT_FOUND');
    expect((await rejectionOf(bed.feedSources.cancelRun(ACCOUNT, 'no-such-run'))).code).toBe('FEED_RUN_NOT_FOUND');
    expect(await runOf(queueId)).toMatchObject({ status: 'Queued', cancelRequestedAt: null });
  });
  it('at shutdown, stops reading and hands the run back unserved and still Processing; its next delivery reads the feed whole', async () => {
    const { assetSourceId } = await servingSource(3);
    feeds.set('/switch.csv', HEADER + products(6));
    switchDrips = true;
    const update = await bed.feedSources.replace(ACCOUNT, assetSourceId, input('/switch.csv'));
    const shutdown = new AbortController();
    dripClosed = false;
    const running = runJob(update.queueId, assetSourceId, undefined, directSink(undefined, shutdown.signal));
    await waitUntil(async () => (await storedRows(assetSourceId)) > 3, { what: 'rows of the run to be stored' });

    shutdown.abort();
    // Resolves only because the run stopped: the feed never ends on its own.
    expect(await running).toBeInstanceOf(JobHandedBack);
    expect(dripClosed).toBe(true);
    expect(await runOf(update.queueId)).toMatchObject({ status: 'Processing', finishedAt: null });
    expect((await bed.assetSources.get(ACCOUNT, assetSourceId)).rowCount).toBe(3);

    // Another replica's delivery: the partial rows are dropped and the feed is read from its start.
    switchDrips = false;
    expect(await runJob(update.queueId, assetSourceId)).toBeUndefined();
    expect(await runOf(update.queueId)).toMatchObject({ status: 'Completed', rowsRead: 6 });
    expect((await bed.assetSources.get(ACCOUNT, assetSourceId)).rowCount).toBe(6);
    expect(await storedRows(assetSourceId)).toBe(6);
  });

  it("at shutdown, a run waiting for its source's run under way stops waiting and is handed back, still Queued", async () => {
    const { assetSourceId } = await servingSource(3);
    const reading = await bed.feedSources.replace(ACCOUNT, assetSourceId, input('/drip.csv'));
    const running = runJob(reading.queueId, assetSourceId);
    await waitUntil(async () => (await storedRows(assetSourceId)) > 3, { what: 'rows of the first run to be stored' });
    const refresh = await bed.feedSources.refresh(ACCOUNT, assetSourceId);
    const shutdown = new AbortController();
    const waiting = runJob(refresh.queueId, assetSourceId, undefined, directSink(undefined, shutdown.signal));
    await new Promise((resolve) => setTimeout(resolve, 200));
    shutdown.abort();
    expect(await waiting).toBeInstanceOf(JobHandedBack);
    expect(await runOf(refresh.queueId)).toMatchObject({ status: 'Queued' });

    await bed.feedSources.cancelRun(ACCOUNT, reading.queueId);
    expect((await running)?.message).toMatch(/^Cancelled by the owner/);
  });
});
