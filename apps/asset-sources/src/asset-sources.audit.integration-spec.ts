import { AUDIT_CHANGE_SUBJECT, AUDIT_REDACTED, type AuditChangeEvent } from '@contracts/domain';
import { directSink, type JobRequest } from '@platform/jobs';
import { createLogger } from '@platform/logging';
import { OUTBOX_TABLE } from '@platform/nats';
import { openAssetSourcesTestBed, rejectionOf, type AssetSourcesTestBed } from './asset-sources.test-support';
import { feedIngestJob } from './feeds/feed-ingest.job';
import { FEED_INGEST_KIND, type FeedIngestPayload, type FeedSourceInput } from './feeds/feed-source.model';
import { httpFeedReader, startFeedHttpServer, type FeedHttpServer } from './feeds/reading/feed-test-servers';

jest.setTimeout(60_000);

const ACCOUNT = 7301;
const FEED_PASSWORD = 'pw-audit-secret';

const definition = {
  assetSourceName: 'Products',
  columnNames: ['sku', 'name'],
  columns: { assetKeyColumn: 'sku', assetVariantColumn: null, assetGroupColumn: null, reportingColumn: null, rotationWeightColumn: null },
  contentType: null,
};

const feed: FeedSourceInput = {
  definition,
  location: { urlType: 'sftp', url: 'sftp://feeds.example.com/a.csv', fileId: null, urlConfig: { portNumber: 22 } },
  secrets: { username: 'feeder', password: FEED_PASSWORD },
  format: { contentType: 'csv', characterEncoding: 'UTF_8', csvSeparator: 'comma', firstRowIsHeader: true, cdp: false, customCode: null, feedConfig: null },
  schedule: { isScheduled: false, frequency: null, startTime: null, endDate: null },
  policies: {},
};

/** Every write of a source enters the audit trail in its transaction, credentials never. */
describe('asset-sources audit trail (real MariaDB)', () => {
  let bed: AssetSourcesTestBed;
  let server: FeedHttpServer;
  /** The feed body the HTTP server answers for the held-version test. */
  let feedBody = '';

  beforeAll(async () => {
    server = await startFeedHttpServer((_req, res) => void res.writeHead(200, { 'content-type': 'text/csv' }).end(feedBody));
    bed = await openAssetSourcesTestBed('asa', { feedRunCap: 1_000 });
  });

  afterAll(async () => {
    await bed?.close();
    await server?.close();
  });

  async function recordedBy(work: () => Promise<unknown>): Promise<AuditChangeEvent[]> {
    const read = async () =>
      (await bed.db.knex(OUTBOX_TABLE).where('subject', 'like', `%${AUDIT_CHANGE_SUBJECT}`).orderBy('id').select('payload')).map(
        (row: { payload: Buffer }) => JSON.parse(Buffer.from(row.payload).toString('utf8')) as AuditChangeEvent,
      );
    const before = (await read()).length;
    await work();
    return (await read()).slice(before);
  }

  it('records an inline source created, patched and replaced, with before and after', async () => {
    let id = 0;
    const events = await recordedBy(async () => {
      id = await bed.assetSources.createInline(ACCOUNT, { definition, rowsJson: JSON.stringify([{ sku: 'A1', name: 'Apple' }]) });
      await bed.assetSources.patchInline(ACCOUNT, id, { present: new Set(['assetSourceName']), assetSourceName: 'Fruit', columns: {} });
      await bed.assetSources.replaceInline(ACCOUNT, id, { definition: { ...definition, assetSourceName: 'Fruit 2' }, rowsJson: '[]' });
      await rejectionOf(bed.assetSources.replaceInline(ACCOUNT, id + 1000, { definition, rowsJson: '[]' }));
    });
    expect(events.map((e) => [e.resourceType, e.action, e.resourceId])).toEqual([
      ['asset-source', 'create', String(id)],
      ['asset-source', 'update', String(id)],
      ['asset-source', 'update', String(id)],
    ]);
    expect(events[0]).toMatchObject({ actor: { keyId: 'test-key' }, accountId: ACCOUNT, before: null, after: { assetSourceName: 'Products', rowCount: 1 } });
    expect(events[1]).toMatchObject({ before: { assetSourceName: 'Products' }, after: { assetSourceName: 'Fruit' } });
    expect(events[1]?.changedFields).toContain('assetSourceName');
    expect(events[2]).toMatchObject({ before: { assetSourceName: 'Fruit', rowCount: 1 }, after: { assetSourceName: 'Fruit 2', rowCount: 0 } });
  });

  it('records a feed source with its settings, its credentials sealed and never in the trail', async () => {
    const events = await recordedBy(() => bed.feedSources.create(ACCOUNT, feed));
    expect(events).toHaveLength(1);
    const [created] = events;
    expect(created).toMatchObject({
      resourceType: 'feed-source',
      action: 'create',
      after: { assetSourceType: 'feed', feed: { sealedSecrets: AUDIT_REDACTED } },
    });
    expect(JSON.stringify(created)).not.toContain(FEED_PASSWORD);
  });

  it("records the account's retail feed source designated and changed, not a repeat of the same", async () => {
    const first = await bed.assetSources.createInline(ACCOUNT, { definition, rowsJson: '[]' });
    const second = await bed.assetSources.createInline(ACCOUNT, { definition, rowsJson: '[]' });
    const events = await recordedBy(async () => {
      await bed.retailFeed.set(ACCOUNT, first);
      await bed.retailFeed.set(ACCOUNT, first);
      await bed.retailFeed.set(ACCOUNT, second);
      await rejectionOf(bed.retailFeed.set(ACCOUNT, second + 1000));
    });
    expect(events.map((e) => [e.resourceType, e.action, e.resourceId])).toEqual([
      ['retail-feed-setting', 'create', String(ACCOUNT)],
      ['retail-feed-setting', 'update', String(ACCOUNT)],
    ]);
    expect(events[0]).toMatchObject({ accountId: ACCOUNT, before: null, after: { assetSourceId: first } });
    expect(events[1]).toMatchObject({ before: { assetSourceId: first }, after: { assetSourceId: second } });
    expect(events[1]?.changedFields).toContain('assetSourceId');
  });

  it('records the confirmation of a held feed version as an update of the feed source', async () => {
    const logger = createLogger({ service: 'audit-feed-test', level: 'silent' });
    const job = feedIngestJob({
      db: bed.db,
      reader: httpFeedReader([server.hostPort]),
      ...bed.feedStore,
      feedSources: bed.feedSources,
      assetSources: bed.assetSources,
      logger,
    });
    const request = (queueId: string, assetSourceId: number): JobRequest<FeedIngestPayload> => ({
      queueId,
      accountId: ACCOUNT,
      kind: FEED_INGEST_KIND,
      payload: { assetSourceId },
    });
    const run = (queueId: string, assetSourceId: number) => job.run(request(queueId, assetSourceId), directSink());
    const httpFeed: FeedSourceInput = {
      ...feed,
      location: { urlType: 'http', url: `${server.origin}/products.csv`, fileId: null, urlConfig: { httpMethod: 'GET' } },
      secrets: {},
    };
    feedBody = 'sku,name\nA1,Apple\nA2,Pear\n';
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, httpFeed);
    await run(queueId, assetSourceId);
    // An empty version is held until its owner confirms it.
    feedBody = 'sku,name\n';
    const emptied = await bed.feedSources.replace(ACCOUNT, assetSourceId, httpFeed);
    expect(String((await rejectionOf(run(emptied.queueId, assetSourceId))).message)).toMatch(/^Held/);
    const events = await recordedBy(() => bed.feedSources.confirmHeld(ACCOUNT, assetSourceId));
    expect(events.map((e) => [e.resourceType, e.action, e.resourceId])).toEqual([['feed-source', 'update', String(assetSourceId)]]);
    expect(events[0]).toMatchObject({
      accountId: ACCOUNT,
      before: { rowCount: 2, feed: { held: { queueId: emptied.queueId } } },
      after: { rowCount: 0, confirmedRowCount: 0, feed: { held: null, applied: { queueId: emptied.queueId } } },
    });
  });
});
