import { createConnection } from 'mysql2/promise';
import type { Knex } from 'knex';
import { createLogger } from '@platform/logging';
import { waitUntil } from '@platform/testing';
import { directSink, type JobProgressSink, type JobRequest } from '@platform/jobs';
import { withTransaction } from '@platform/mysql';
import { naming } from '@platform/nats';
import { createSecretBox, developmentKey } from '@platform/secrets';
import { actingAs, createEventOutbox, TEST_PRINCIPAL } from '@platform/service';
import { createAssetSourcesServices } from '../asset-sources.services';
import { openAssetSourcesTestBed, rejectionOf, type AssetSourcesTestBed } from '../asset-sources.test-support';
import { KEY_VALUE_MAX } from '../sources/asset-source.model';
import { feedIngestJob } from './feed-ingest.job';
import { StagedRows } from './feed-rows.repository';
import { FEED_INGEST_KIND, type FeedIngestPayload, type FeedSourceInput } from './feed-source.model';
import { httpFeedReader, startFeedHttpServer, type FeedHttpServer } from './reading/feed-test-servers';
import { parseInWorker } from './reading/feed-parsing';

jest.setTimeout(60_000);

const logger = createLogger({ service: 'feed-ingest-test', level: 'silent' });
const ACCOUNT = 7001;

/** A feed body per path that a test sets; every answer carries the ETag the test gives. */
const feeds = new Map<
  string,
  { body: string | Buffer; etag?: string; status?: number; cutAfter?: number; stallAfter?: number; delayMs?: number; failWith?: number[] }
>();
/** When each answer's body was sent, by path. */
const servedAt = new Map<string, number[]>();

const input = (path: string, overrides: Partial<FeedSourceInput> = {}, server?: FeedHttpServer): FeedSourceInput => ({
  definition: {
    assetSourceName: 'Products',
    columnNames: ['sku', 'name', 'price', 'weight'],
    columns: { assetKeyColumn: 'sku', assetVariantColumn: null, assetGroupColumn: null, reportingColumn: 'name', rotationWeightColumn: 'weight' },
    contentType: null,
  },
  location: { urlType: 'http', url: `${server?.origin ?? 'http://feeds.example.com'}${path}`, fileId: null, urlConfig: { httpMethod: 'GET' } },
  secrets: {},
  format: { contentType: 'csv', characterEncoding: 'UTF_8', csvSeparator: 'comma', firstRowIsHeader: true, cdp: false, customCode: null, feedConfig: null },
  schedule: { isScheduled: false, frequency: null, startTime: null, endDate: null },
  policies: {},
  ...overrides,
});

const csv = (rows: string[]) => `sku,name,price,weight\n${rows.join('\n')}\n`;
const products = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `P${from + i},Product ${from + i},${(from + i) % 50}.99,1`);

describe('feed sources: create, ingest over HTTP, replace atomically', () => {
  let bed: AssetSourcesTestBed;
  let server: FeedHttpServer;
  let clock = new Date('2026-11-24T12:00:00Z');
  const progress: number[] = [];
  const sink: JobProgressSink = directSink(async (processed) => void progress.push(processed));

  beforeAll(async () => {
    server = await startFeedHttpServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      const feed = feeds.get(path);
      if (!feed) return void res.writeHead(404).end('no such feed');
      // A host that fails its first requests (one status each), then answers.
      const failure = feed.failWith?.shift();
      if (failure !== undefined) return void res.writeHead(failure).end('try later');
      const answer = () => {
        servedAt.set(path, [...(servedAt.get(path) ?? []), Date.now()]);
        res.writeHead(feed.status ?? 200, { 'content-type': 'text/csv', ...(feed.etag ? { etag: feed.etag } : {}) });
        // A connection that breaks part-way: the head of the body, then a reset.
        if (feed.cutAfter !== undefined) {
          res.write(feed.body.slice(0, feed.cutAfter));
          setTimeout(() => res.destroy(), 20);
          return;
        }
        // A host that goes quiet part-way and never closes the connection.
        if (feed.stallAfter !== undefined) return void res.write(feed.body.slice(0, feed.stallAfter));
        res.end(feed.body);
      };
      // A slow server answers later.
      if (feed.delayMs) setTimeout(answer, feed.delayMs);
      else answer();
    });
    // Most specs here leave runs queued that no worker takes: the account's cap on feed runs has a spec of its own.
    bed = await openAssetSourcesTestBed('feedingest', { now: () => clock, feedRunCap: 1_000 });
  });

  afterAll(async () => {
    await bed?.close();
    await server?.close();
  });

  const job = (limits: Parameters<typeof httpFeedReader>[1] = {}, readRetryDelaysMs: number[] = []) =>
    feedIngestJob({
      db: bed.db,
      reader: httpFeedReader([server.hostPort], limits, parseInWorker),
      readRetryDelaysMs,
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
  const run = (queueId: string, assetSourceId: number) => job().run(request(queueId, assetSourceId), sink);
  /** A source of another kind, for the feed-only operations to refuse. */
  const inlineSource = () =>
    bed.assetSources.createInline(ACCOUNT, {
      definition: {
        ...input('/').definition,
        columnNames: ['sku'],
        columns: { ...input('/').definition.columns, reportingColumn: null, rotationWeightColumn: null },
      },
      rowsJson: '[{"sku":"A"}]',
    });
  const rows = async (assetSourceId: number) =>
    JSON.parse((await bed.assetSources.readData(ACCOUNT, assetSourceId, { limit: 100 })).rowsJson) as Record<string, string>[];
  const generationsServed = async (assetSourceId: number) =>
    Number((await bed.db.knex('asset_sources').where({ asset_source_id: assetSourceId }).first('row_generation')).row_generation);
  const runOf = async (queueId: string) => (await bed.feedSources.report([ACCOUNT], queueId, { line: 0, seq: 0 }, 1)).run;
  const outbox = async () => (await bed.db.knex('outbox').select('subject', 'payload')) as { subject: string; payload: Buffer }[];
  /**
   * A race made certain: a transaction of the spec's own holds the source's row (as a swap or another update
   * would); `start` begins a call, which is let run until it waits for that row (its statement seen in the
   * server's process list); then `meanwhile` writes in the holding transaction, which commits. Answers the
   * call begun, still to be awaited.
   */
  const whileSourceRowHeld = async <T>(
    assetSourceId: number,
    start: () => Promise<T>,
    meanwhile: (trx: Knex.Transaction) => Promise<void>,
  ): Promise<{ started: Promise<T> }> => {
    const holding = await bed.db.knex.transaction();
    // Another session's statement is seen by an account with the PROCESS privilege, not by the service's own.
    const admin = await createConnection(process.env['MYSQL_URL'] ?? 'mysql://root@127.0.0.1:3306');
    try {
      const [[{ schema }]] = (await bed.db.knex.raw('SELECT DATABASE() AS `schema`')) as [[{ schema: string }]];
      await holding.raw('SELECT asset_source_id FROM asset_sources WHERE asset_source_id = ? FOR UPDATE', [assetSourceId]);
      const started = start();
      await waitUntil(
        async () => {
          const [waiting] = (await admin.query('SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ? AND INFO LIKE ?', [
            schema,
            `SELECT * FROM asset_sources WHERE asset_source_id = ${assetSourceId} %FOR UPDATE`,
          ])) as unknown as [{ n: number }[]];
          return Number(waiting[0]?.n) > 0;
        },
        { what: 'the call to wait for the source' },
      );
      await meanwhile(holding);
      await holding.commit();
      return { started };
    } finally {
      if (!holding.isCompleted()) await holding.rollback();
      await admin.end();
    }
  };

  it('refuses each broken rule with the field named, and stores nothing', async () => {
    const before = (await outbox()).length;
    const cases: [Partial<FeedSourceInput>, string, string][] = [
      [
        { definition: { ...input('/a').definition, columns: { ...input('/a').definition.columns, assetGroupColumn: 'brand' } } },
        '/assetGroupColumn',
        'UNKNOWN_COLUMN',
      ],
      [{ format: { ...input('/a').format, cdp: true, customCode: '  ' } }, '/customCode', 'REQUIRED'],
      [
        { location: { urlType: 'objstore', url: 's3://bucket/feed.csv', fileId: null, urlConfig: {} }, secrets: { accessKey: 'AK' } },
        '/urlConfig/secretKey',
        'REQUIRED',
      ],
      [
        { location: { urlType: 'ftp', url: 'ftp://feeds.example.com/a.csv', fileId: null, urlConfig: {} }, secrets: { accessKey: 'AK' } },
        '/urlConfig/accessKey',
        'UNKNOWN_FIELD',
      ],
      [
        { location: { urlType: 'sftp', url: 'sftp://feeds.example.com/a.csv', fileId: null, urlConfig: { portNumber: 22 } }, secrets: { username: 'u' } },
        '/urlConfig/password',
        'REQUIRED',
      ],
      [{ location: { urlType: 'https', url: 'http://feeds.example.com/a.csv', fileId: null, urlConfig: {} } }, '/url', 'INVALID_FORMAT'],
      ...(
        [
          ['s3://bucket/feed.csv', { endpoint: 'http://minio.example.com:9000/bucket' }, '/urlConfig/endpoint', 'INVALID_FORMAT'],
          ['s3://bucket/feed.csv', { endpoint: 'ftp://minio.example.com' }, '/urlConfig/endpoint', 'INVALID_FORMAT'],
          ['http://minio.example.com:9000/bucket/feed.csv', { endpoint: 'http://other.example.com' }, '/urlConfig/endpoint', 'NOT_ALLOWED'],
          ['s3://bucket/feed.csv', { region: 'EU West' }, '/urlConfig/region', 'INVALID_FORMAT'],
        ] as const
      ).map(([url, urlConfig, pointer, code]): [Partial<FeedSourceInput>, string, string] => [
        { location: { urlType: 'objstore', url, fileId: null, urlConfig }, secrets: { accessKey: 'AK', secretKey: 'SK' } },
        pointer,
        code,
      ]),
      [
        { location: { urlType: 'https', url: 'https://feeds.example.com/a.csv', fileId: null, urlConfig: { region: 'us-east-1' } } },
        '/urlConfig/region',
        'UNKNOWN_FIELD',
      ],
      [{ schedule: { isScheduled: true, frequency: null, startTime: '25:00', endDate: '2026-02-30' } }, '/frequency', 'REQUIRED'],
      [{ schedule: { isScheduled: true, frequency: 'DAILY', startTime: '25:00', endDate: null } }, '/startTime', 'INVALID_FORMAT'],
      [{ schedule: { isScheduled: true, frequency: 'DAILY', startTime: '06:00', endDate: '2026-02-30' } }, '/endDate', 'INVALID_FORMAT'],
      [{ policies: { missingRowPolicy: 'archive' as never } }, '/missingRowPolicy', 'NOT_ALLOWED'],
      // A library file is named by its path: the path rules are told at fileId, before the library is asked.
      [{ location: { urlType: 'https', url: '', fileId: 'products', urlConfig: {} } }, '/fileId', 'EXTENSION_NOT_ALLOWED'],
      [{ location: { urlType: 'https', url: '', fileId: '../other/products.csv', urlConfig: {} } }, '/fileId', 'PATH_TRAVERSAL'],
    ];
    for (const [overrides, pointer, code] of cases) {
      const error = await rejectionOf(bed.feedSources.create(ACCOUNT, input('/a', overrides)));
      expect({ code: error.code, errors: error.errors }).toEqual({
        code: 'VALIDATION_FAILED',
        errors: expect.arrayContaining([expect.objectContaining({ pointer, code })]),
      });
    }
    expect((await bed.assetSources.list(ACCOUNT)).total).toBe(0);
    expect(await outbox()).toHaveLength(before);
  });

  it('from process output, refuses columns the feed config does not name', async () => {
    const feedConfig = {
      rootIsObject: false,
      rowXPath: '',
      xpathMap: {},
      csvColumns: { sku: 0, name: 1, price: 2 },
      memPerRow: 0,
      estRowsPerChunk: 0,
      oneRowPerObject: false,
      rootIsArray: false,
      cdp: false,
      fileId: '',
      cdpXpathMap: {},
    };
    const error = await rejectionOf(bed.feedSources.create(ACCOUNT, input('/a', { format: { ...input('/a').format, feedConfig } })));
    expect(error.errors).toEqual([expect.objectContaining({ pointer: '/columnNames/3', code: 'UNKNOWN_COLUMN' })]);
  });

  it('keeps the config process answered across an update without feedConfig, while the content type stays', async () => {
    // A feed without a header row: only the config names its columns, by position.
    feeds.set('/headerless.csv', { body: 'A,Apple,1.00,1\nB,Banana,2.00,1\n' });
    const csvColumns = { sku: 0, name: 1, price: 2, weight: 3 };
    const feedConfig = {
      ...{ rootIsObject: false, rowXPath: '', xpathMap: {}, csvColumns, memPerRow: 0, estRowsPerChunk: 0, oneRowPerObject: false },
      ...{ rootIsArray: false, cdp: false, fileId: '', cdpXpathMap: {} },
    };
    const format = { ...input('/').format, firstRowIsHeader: false };
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/headerless.csv', { format: { ...format, feedConfig } }, server));
    await run(queueId, assetSourceId);

    // The detail does not answer feedConfig, so a client changing the name or the schedule sends none.
    const renamed = { ...input('/').definition, assetSourceName: 'Renamed' };
    const updated = await bed.feedSources.replace(ACCOUNT, assetSourceId, input('/headerless.csv', { definition: renamed, format }, server));
    expect((await run(updated.queueId, assetSourceId)).message).toBe('Completed: 2 rows serving, 2 read.');
    expect((await bed.feedSources.settings(assetSourceId))?.format.feedConfig).toEqual(feedConfig);
    expect((await rows(assetSourceId)).map((r) => r.name)).toEqual(['Apple', 'Banana']);

    // Another content type drops it: it described the other format's feed.
    const asJson = { ...format, contentType: 'json' as const };
    await bed.feedSources.replace(ACCOUNT, assetSourceId, input('/headerless.csv', { format: asJson }, server));
    expect((await bed.feedSources.settings(assetSourceId))?.format.feedConfig).toBeNull();
  });

  it('seals the credentials: not in the row, not in the outbox, only their names answered', async () => {
    const created = await bed.feedSources.create(ACCOUNT, input('/private.csv', { secrets: { username: 'feeder', password: 'pa55-w0rd-secret' } }, server));
    const stored = await bed.db.knex('feed_sources').where({ asset_source_id: created.assetSourceId }).first();
    expect(JSON.stringify(stored)).not.toContain('pa55-w0rd-secret');
    expect(Buffer.from(stored.sealed_credentials).toString('latin1')).not.toContain('pa55-w0rd-secret');
    const messages = (await outbox()).filter((m) => m.payload.toString('latin1').includes(created.queueId));
    expect(messages.map((m) => m.subject).sort()).toEqual([`${bed.prefix}jobs.progress.feed-ingest`, `${bed.prefix}jobs.requested.feed-ingest`].sort());
    for (const m of messages) expect(m.payload.toString('latin1')).not.toContain('pa55-w0rd-secret');
    const settings = await bed.feedSources.settings(created.assetSourceId);
    expect(settings?.secretsSet.sort()).toEqual(['password', 'username']);
    expect(JSON.stringify({ ...settings, sealedSecrets: undefined })).not.toContain('pa55-w0rd-secret');
  });

  it('ingests a CSV over HTTP with its health report: duplicate keys, empty keys, rejected rows with their lines', async () => {
    feeds.set('/health.csv', {
      body: csv(['A,Apple,1.00,2', 'B,Banana,2.00,x', ',Nameless,3.00,1', 'A,Apple again,1.50,1', 'C,Cherry,4.00,', 'a,Lower apple,1.00,1']),
    });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/health.csv', {}, server));
    const result = await run(queueId, assetSourceId);
    expect(result).toMatchObject({ totalItems: 6, totalProcessed: 6 });
    expect(result.message).toBe('Completed: 5 rows serving, 6 read, 1 rejected, 1 duplicate key, 1 empty key.');
    expect(await rows(assetSourceId)).toEqual([
      { sku: 'A', name: 'Apple', price: '1.00', weight: '2' },
      { sku: '', name: 'Nameless', price: '3.00', weight: '1' },
      { sku: 'A', name: 'Apple again', price: '1.50', weight: '1' },
      { sku: 'C', name: 'Cherry', price: '4.00', weight: '' },
      { sku: 'a', name: 'Lower apple', price: '1.00', weight: '1' },
    ]);
    const report = await bed.feedSources.report([ACCOUNT], queueId, { line: 0, seq: 0 }, 100);
    // Keys compare exactly: "a" is not a duplicate of "A".
    expect(report.run).toMatchObject({ status: 'Completed', rowsRead: 6, rowsStored: 5, duplicateKeys: 1, emptyKeys: 1, rejectedRows: 1 });
    // A rejected row names its key, when it has one, so the product dropped can be found.
    expect(report.entries.map((e) => [e.line, e.kind, e.keyValue])).toEqual([
      [3, 'rejected', 'B'],
      [4, 'empty-key', null],
      [5, 'duplicate-key', 'A'],
    ]);
    expect(report.entries[0].reason).toMatch(/rotation weight "x"/);
    // Another account's key does not see the run.
    expect((await rejectionOf(bed.feedSources.report([ACCOUNT + 1], queueId, { line: 0, seq: 0 }, 10))).code).toBe('FEED_RUN_NOT_FOUND');
    // Nothing stays staged once the run has swapped in and cleaned up.
    await job().cleanup?.(request(queueId, assetSourceId));
    expect(await bed.feedStore.rows.stagedCount(queueId)).toBe(0);
  });

  it('names the key of a row customCode failed on in the health report', async () => {
    feeds.set('/cdp.csv', { body: csv(['A,Apple,1.00,1', 'B,Banana,2.00,1']) });
    const format = { ...input('/').format, cdp: true, customCode: 'if (row.sku === "B") throw new Error("boom"); return row;' };
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/cdp.csv', { format }, server));
    expect((await run(queueId, assetSourceId)).message).toBe('Completed: 1 row serving, 2 read, 1 rejected.');
    const report = await bed.feedSources.report([ACCOUNT], queueId, { line: 0, seq: 0 }, 100);
    expect(report.entries.map((e) => [e.line, e.kind, e.keyValue, e.reason])).toEqual([[3, 'rejected', 'B', 'customCode failed: Error: boom']]);
  });

  it('rejects a row whose key is longer than a key may be, instead of comparing keys cut short', async () => {
    const long = (last: string) => `${'X'.repeat(KEY_VALUE_MAX)}${last}`;
    // 255 astral characters are 510 UTF-16 units, and still a key of 255 characters.
    const astral = '\u{1F600}'.repeat(KEY_VALUE_MAX);
    feeds.set('/long-keys.csv', { body: csv([`${long('A')},a,1,1`, `${long('B')},b,1,1`, `${astral},smiles,1,1`, 'S1,s,1,1']) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/long-keys.csv', {}, server));
    expect((await run(queueId, assetSourceId)).message).toBe('Completed: 2 rows serving, 4 read, 2 rejected.');
    expect((await rows(assetSourceId)).map((r) => r.name)).toEqual(['smiles', 's']);
    const report = await bed.feedSources.report([ACCOUNT], queueId, { line: 0, seq: 0 }, 100);
    expect(report.entries.map((e) => [e.line, e.kind, e.reason])).toEqual([
      [2, 'rejected', `The value in the asset key column "sku" is ${KEY_VALUE_MAX + 1} characters long; a key may have at most ${KEY_VALUE_MAX}.`],
      [3, 'rejected', `The value in the asset key column "sku" is ${KEY_VALUE_MAX + 1} characters long; a key may have at most ${KEY_VALUE_MAX}.`],
    ]);
    expect(report.entries[0].keyValue).toBe(long('A').slice(0, KEY_VALUE_MAX));
  });

  it('completes a feed read as UTF-8 that is not, and says where and what to set', async () => {
    feeds.set('/latin1.csv', { body: Buffer.from(csv(['C1,Café,1.00,1', 'C2,Crème,2.00,1']), 'latin1') });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/latin1.csv', {}, server));
    expect((await run(queueId, assetSourceId)).message).toBe(
      'Completed: 2 rows serving, 2 read; the feed is not UTF-8 from byte 28 on (0xE9), so some of its text reads wrong: ' +
        'set characterEncoding to its encoding (CP1252 or iso_8859_1 for most spreadsheet exports).',
    );
  });

  it("says which of the source's columns no row had, and leaves their cells empty", async () => {
    feeds.set('/no-colour.csv', { body: csv(products(3)) });
    const definition = { ...input('/').definition, columnNames: ['sku', 'name', 'price', 'weight', 'colour', 'size'] };
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/no-colour.csv', { definition }, server));
    const result = await run(queueId, assetSourceId);
    expect(result.message).toBe('Completed: 3 rows serving, 3 read; no row has the columns "colour", "size".');
    expect((await rows(assetSourceId))[0]).toEqual({ sku: 'P0', name: 'Product 0', price: '0.99', weight: '1' });
    expect((await bed.feedSources.report([ACCOUNT], queueId, { line: 0, seq: 0 }, 10)).run.message).toBe(result.message);
  });

  it('refuses a feed without a special column the source names, listing the columns its rows have', async () => {
    feeds.set('/no-ean.csv', { body: csv(products(3)) });
    const definition = {
      ...input('/').definition,
      columnNames: ['ean', 'name'],
      columns: { ...input('/').definition.columns, assetKeyColumn: 'ean', rotationWeightColumn: null },
    };
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/no-ean.csv', { definition }, server));
    const failure = await rejectionOf(run(queueId, assetSourceId));
    expect(failure.message).toBe(
      'The feed was not ingested: the feed has no column "ean", which the source names as a special column; its rows have the columns "sku", "name", "price", "weight". The rows already serving are unchanged.',
    );
  });

  it('reports every rejected row, past any cap of a hundred', async () => {
    feeds.set('/many-bad.csv', { body: csv([...products(10), ...Array.from({ length: 250 }, (_, i) => `Q${i},Bad,1.00,heavy`)]) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/many-bad.csv', {}, server));
    await run(queueId, assetSourceId);
    const report = await bed.feedSources.report([ACCOUNT], queueId, { line: 0, seq: 0 }, 1000);
    expect(report.run.rejectedRows).toBe(250);
    expect(report.entries).toHaveLength(250);
    expect(report.entries[249]).toMatchObject({ line: 261, kind: 'rejected' });
  });

  it('leaves the old rows serving when a new version breaks part-way or is not there, and says why', async () => {
    feeds.set('/fragile.csv', { body: csv(products(20)) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/fragile.csv', {}, server));
    await run(queueId, assetSourceId);
    const before = await rows(assetSourceId);
    expect(before).toHaveLength(20);

    // Cut past the first insert of rows: what it wrote stays out of sight until the clean-up drops it.
    feeds.set('/fragile.csv', { body: csv(products(20_000, 100)), cutAfter: 300_000 });
    const broken = await bed.feedSources.replace(ACCOUNT, assetSourceId, input('/fragile.csv', {}, server));
    const failure = await rejectionOf(run(broken.queueId, assetSourceId));
    expect(failure).toMatchObject({ name: 'JobFailed' });
    expect(String(failure.message)).toMatch(/not ingested.*unchanged/);
    expect(await rows(assetSourceId)).toEqual(before);
    expect(await bed.feedStore.rows.stagedCount(broken.queueId)).toBeGreaterThan(0);
    await job().cleanup?.(request(broken.queueId, assetSourceId));
    expect(await bed.feedStore.rows.stagedCount(broken.queueId)).toBe(0);
    expect((await bed.feedSources.report([ACCOUNT], broken.queueId, { line: 0, seq: 0 }, 1)).run).toMatchObject({ status: 'Failed' });

    feeds.delete('/fragile.csv');
    const missing = await bed.feedSources.replace(ACCOUNT, assetSourceId, input('/fragile.csv', {}, server));
    expect(String((await rejectionOf(run(missing.queueId, assetSourceId))).message)).toMatch(/no feed at .*fragile\.csv.*unchanged/);
    expect(await rows(assetSourceId)).toEqual(before);
  });

  it("keeps the columns and keys of the rows serving through an update that changes them, until its run's version is swapped in", async () => {
    const path = '/rekeyed.csv';
    feeds.set(path, { body: csv(products(5)) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input(path, {}, server));
    await run(queueId, assetSourceId);
    const serving = { columnNames: input('/').definition.columnNames, columns: input('/').definition.columns };
    const columnsOf = async () => {
      const { columnNames, columns } = await bed.assetSources.get(ACCOUNT, assetSourceId);
      return { columnNames, columns };
    };
    const bySku = async () => (await bed.assetSources.findRows(ACCOUNT, assetSourceId, 'sku', ['P1', 'P3'])).map((r) => r.value);
    expect(await bySku()).toEqual(['P1', 'P3']);

    // Keyed by a column the feed lacks: the run fails, and the rows serving keep their keys and columns.
    const colour = {
      ...input('/').definition,
      columnNames: ['sku', 'colour'],
      columns: { ...input('/').definition.columns, assetKeyColumn: 'colour', reportingColumn: null, rotationWeightColumn: null },
    };
    const broken = await bed.feedSources.replace(ACCOUNT, assetSourceId, input(path, { definition: colour }, server));
    expect(await columnsOf()).toEqual(serving);
    expect((await bed.feedSources.settings(assetSourceId))?.pendingColumns).toEqual({ columnNames: colour.columnNames, columns: colour.columns });
    expect(await bySku()).toEqual(['P1', 'P3']);
    expect(String((await rejectionOf(run(broken.queueId, assetSourceId))).message)).toMatch(/no column "colour"/);
    expect(await columnsOf()).toEqual(serving);
    expect(await bySku()).toEqual(['P1', 'P3']);
    expect((await rows(assetSourceId)).map((r) => r.sku)).toEqual(['P0', 'P1', 'P2', 'P3', 'P4']);

    // Keyed by name: the source takes the new columns with the version that has them, and nothing waits.
    const byName = { ...input('/').definition, columns: { ...input('/').definition.columns, assetKeyColumn: 'name' } };
    const rekeyed = await bed.feedSources.replace(ACCOUNT, assetSourceId, input(path, { definition: byName }, server));
    expect(await columnsOf()).toEqual(serving);
    await run(rekeyed.queueId, assetSourceId);
    expect(await columnsOf()).toEqual({ columnNames: byName.columnNames, columns: byName.columns });
    expect((await bed.feedSources.settings(assetSourceId))?.pendingColumns).toBeNull();
    expect((await bed.feedStore.feeds.getRun(rekeyed.queueId))?.columnSet).toEqual({ columnNames: byName.columnNames, columns: byName.columns });
    expect((await bed.assetSources.findRows(ACCOUNT, assetSourceId, 'name', ['Product 2'])).map((r) => JSON.parse(r.rowJson).sku)).toEqual(['P2']);

    // An update back to the columns serving leaves nothing pending.
    await bed.feedSources.replace(ACCOUNT, assetSourceId, input(path, { definition: colour }, server));
    await bed.feedSources.replace(ACCOUNT, assetSourceId, input(path, { definition: byName }, server));
    expect((await bed.feedSources.settings(assetSourceId))?.pendingColumns).toBeNull();
  });

  it('fails a run whose host goes quiet part-way once the idle timeout passes, long before the read timeout, leaving the old rows serving', async () => {
    feeds.set('/quiet.csv', { body: csv(products(10)) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/quiet.csv', {}, server));
    await run(queueId, assetSourceId);
    const before = await rows(assetSourceId);

    feeds.set('/quiet.csv', { body: csv(products(5_000, 100)), stallAfter: 50_000 });
    const stalled = await bed.feedSources.replace(ACCOUNT, assetSourceId, input('/quiet.csv', {}, server));
    const failure = await rejectionOf(job({ timeoutMs: 60_000, idleTimeoutMs: 300 }).run(request(stalled.queueId, assetSourceId), sink));
    expect(String(failure.message)).toMatch(/quiet\.csv stalled: nothing arrived for 300 ms\..*unchanged/);
    expect(await runOf(stalled.queueId)).toMatchObject({ status: 'Failed' });
    expect(await rows(assetSourceId)).toEqual(before);
  });

  /** A sink that keeps what the run says on the queue; `stopping` as the runner's consumer would abort it. */
  const saying = (stopping = new AbortController().signal) => {
    const said: string[] = [];
    return { said, sink: directSink(async (_done, _total, message) => void said.push(message ?? ''), stopping) };
  };
  const requestsFor = (path: string) => server.requests.filter((r) => r.url === path).length;

  it('reads a feed again after a failure another try may not meet, saying why and when, and serves it', async () => {
    feeds.set('/flaky.csv', { body: csv(products(30)), failWith: [503, 502] });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/flaky.csv', {}, server));
    const { said, sink: heard } = saying();

    const result = await job({}, [50, 50]).run(request(queueId, assetSourceId), heard);

    expect(result.message).toMatch(/^Completed: 30 rows serving/);
    expect(requestsFor('/flaky.csv')).toBe(3);
    expect(said.filter((message) => message.startsWith('The feed could not be read'))).toEqual([
      `The feed could not be read: ${server.origin}/flaky.csv answered 503. Reading it again in 50 ms (attempt 2 of 3).`,
      `The feed could not be read: ${server.origin}/flaky.csv answered 502. Reading it again in 50 ms (attempt 3 of 3).`,
    ]);
    expect(await rows(assetSourceId)).toHaveLength(30);
  });

  it('gives up after the last try with its cause, the old rows serving; what the owner must fix is not tried again', async () => {
    feeds.set('/down.csv', { body: csv(products(5)) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/down.csv', {}, server));
    await run(queueId, assetSourceId);
    const before = await rows(assetSourceId);

    feeds.set('/down.csv', { body: csv(products(5)), failWith: [503, 503, 503] });
    const down = await bed.feedSources.refresh(ACCOUNT, assetSourceId);
    const failure = await rejectionOf(job({}, [20, 20]).run(request(down.queueId, assetSourceId), sink));
    expect(failure.message).toBe(
      `The feed could not be read: ${server.origin}/down.csv answered 503. It failed on each of 3 attempts. The rows already serving are unchanged.`,
    );
    expect(await runOf(down.queueId)).toMatchObject({ status: 'Failed', message: failure.message });
    expect(await rows(assetSourceId)).toEqual(before);

    feeds.delete('/down.csv');
    const asked = requestsFor('/down.csv');
    const missing = await bed.feedSources.refresh(ACCOUNT, assetSourceId);
    expect((await rejectionOf(job({}, [20, 20]).run(request(missing.queueId, assetSourceId), sink))).message).toBe(
      `The feed could not be read: There is no feed at ${server.origin}/down.csv. The rows already serving are unchanged.`,
    );
    expect(requestsFor('/down.csv')).toBe(asked + 1);
  });

  it('reads at once when the source is refreshed while its run waits to read again: the refresh is that run', async () => {
    feeds.set('/fixed.csv', { body: csv(products(7)), failWith: [503] });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/fixed.csv', {}, server));
    const running = job({}, [600_000]).run(request(queueId, assetSourceId), sink);
    await waitUntil(async () => /Reading it again in 10 min/.test((await runOf(queueId)).message), { what: 'the run to wait to read again' });

    expect(await bed.feedSources.refresh(ACCOUNT, assetSourceId)).toEqual({ queueId, outcome: 'read-now' });
    expect((await running).message).toMatch(/^Completed: 7 rows serving/);
    expect(requestsFor('/fixed.csv')).toBe(2);
    expect(await runOf(queueId)).toMatchObject({ status: 'Completed', readAgainAt: null });
  });

  it('hands a run that waits to read again back when its worker stops, and ends it Cancelled when it is cancelled meanwhile', async () => {
    feeds.set('/later.csv', { body: csv(products(5)), failWith: [503, 503] });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/later.csv', {}, server));
    const stop = new AbortController();
    const handedBack = rejectionOf(job({}, [60_000]).run(request(queueId, assetSourceId), saying(stop.signal).sink));
    await waitUntil(async () => /Reading it again in 1 min/.test((await runOf(queueId)).message), { what: 'the run to wait to read again' });
    stop.abort();
    expect(await handedBack).toMatchObject({ name: 'JobHandedBack' });
    expect(await runOf(queueId)).toMatchObject({ status: 'Processing' });

    const cancelledRun = rejectionOf(job({}, [60_000]).run(request(queueId, assetSourceId), sink));
    await waitUntil(async () => requestsFor('/later.csv') === 2, { what: 'the second delivery to read once' });
    await waitUntil(async () => /Reading it again/.test((await runOf(queueId)).message), { what: 'the second delivery to wait' });
    await bed.feedSources.cancelRun(ACCOUNT, queueId);
    expect((await cancelledRun).message).toMatch(/^Cancelled/);
    expect(await runOf(queueId)).toMatchObject({ status: 'Cancelled' });
  });

  /** Row counts by generation of a source, as stored (what reads see and what they do not). */
  const generations = async (assetSourceId: number) =>
    Object.fromEntries(
      (
        (await bed.db
          .knex('asset_source_rows')
          .where({ asset_source_id: assetSourceId })
          .groupBy('generation')
          .orderBy('generation')
          .select('generation', bed.db.knex.raw('COUNT(*) AS n'))) as { generation: number; n: number }[]
      ).map((g) => [Number(g.generation), Number(g.n)]),
    );
  const served = async (assetSourceId: number) =>
    Number(
      ((await bed.db.knex('asset_sources').where({ asset_source_id: assetSourceId }).first('row_generation')) as { row_generation: number }).row_generation,
    );

  it('writes each run under a generation of its own and flips to it; the replaced generation is dropped in the clean-up, a failed run leaves the previous one served', async () => {
    feeds.set('/generations.csv', { body: csv(products(12_000)) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/generations.csv', {}, server));
    await run(queueId, assetSourceId);
    const first = await served(assetSourceId);
    expect(first).toBeGreaterThan(0);
    await job().cleanup?.(request(queueId, assetSourceId));
    expect(await generations(assetSourceId)).toEqual({ [first]: 12_000 });

    feeds.set('/generations.csv', { body: csv(products(11_000, 50_000)) });
    const next = await bed.feedSources.replace(ACCOUNT, assetSourceId, input('/generations.csv', {}, server));
    await run(next.queueId, assetSourceId);
    const second = await served(assetSourceId);
    expect(second).toBeGreaterThan(first);
    expect((await rows(assetSourceId))[0]).toMatchObject({ sku: 'P50000' });
    expect((await bed.assetSources.get(ACCOUNT, assetSourceId)).rowCount).toBe(11_000);
    // The old rows are out of sight at once, and gone after the clean-up (which follows the Completed state).
    expect(await generations(assetSourceId)).toEqual({ [first]: 12_000, [second]: 11_000 });
    await job().cleanup?.(request(next.queueId, assetSourceId));
    expect(await generations(assetSourceId)).toEqual({ [second]: 11_000 });

    // A run that breaks after writing rows: the previous generation stays served, the broken one is dropped.
    feeds.set('/generations.csv', { body: csv(products(20_000, 90_000)), cutAfter: 300_000 });
    const broken = await bed.feedSources.replace(ACCOUNT, assetSourceId, input('/generations.csv', {}, server));
    await rejectionOf(run(broken.queueId, assetSourceId));
    expect(await served(assetSourceId)).toBe(second);
    expect(Object.keys(await generations(assetSourceId))).toHaveLength(2);
    expect((await rows(assetSourceId))[0]).toMatchObject({ sku: 'P50000' });
    await job().cleanup?.(request(broken.queueId, assetSourceId));
    expect(await generations(assetSourceId)).toEqual({ [second]: 11_000 });
  });

  it('recovers from a run killed mid-way: its rows are never read, and the redelivered run drops them and starts over', async () => {
    feeds.set('/killed.csv', { body: csv(products(30)) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/killed.csv', {}, server));
    await run(queueId, assetSourceId);
    const before = await rows(assetSourceId);

    // What a process killed part-way through a run leaves: a generation of the run with some rows, never flipped to, no clean-up.
    feeds.set('/killed.csv', { body: csv(products(40, 500)) });
    const next = await bed.feedSources.replace(ACCOUNT, assetSourceId, input('/killed.csv', {}, server));
    const orphan = await withTransaction(bed.db.knex, (trx) => bed.feedStore.rows.newGeneration(trx, assetSourceId, next.queueId, input('/').definition));
    await bed.feedStore.rows.stage(
      StagedRows.of(
        assetSourceId,
        orphan,
        Array.from({ length: 7 }, (_, i) => ({ ordinal: i, keyValue: `X${i}`, rowJson: JSON.stringify({ sku: `X${i}` }) })),
      ),
    );
    await bed.db.knex('feed_runs').where({ queue_id: next.queueId }).update({ status: 'Processing' });
    expect(await rows(assetSourceId)).toEqual(before);
    expect(await bed.assetSources.findRows(ACCOUNT, assetSourceId, 'sku', ['X1'])).toEqual([]);
    expect(await bed.feedStore.rows.stagedCount(next.queueId)).toBe(7);

    // The redelivery runs from the start under a new generation.
    await run(next.queueId, assetSourceId);
    expect((await rows(assetSourceId)).map((r) => r.sku)).toEqual(products(40, 500).map((line) => line.split(',')[0]));
    const g = await generations(assetSourceId);
    expect(g[orphan]).toBeUndefined();
    expect(await served(assetSourceId)).toBeGreaterThan(orphan);
  });

  it("never drops a later run's generation in an earlier run's clean-up", async () => {
    feeds.set('/overlap.csv', { body: csv(products(10)) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/overlap.csv', {}, server));
    await run(queueId, assetSourceId);
    // A later run has started writing (its generation is newer) when the earlier run's clean-up comes.
    const later = await bed.feedSources.replace(ACCOUNT, assetSourceId, input('/overlap.csv', {}, server));
    const writing = await withTransaction(bed.db.knex, (trx) => bed.feedStore.rows.newGeneration(trx, assetSourceId, later.queueId, input('/').definition));
    await bed.feedStore.rows.stage(StagedRows.of(assetSourceId, writing, [{ ordinal: 0, keyValue: 'W', rowJson: '{"sku":"W"}' }]));
    await job().cleanup?.(request(queueId, assetSourceId));
    expect((await generations(assetSourceId))[writing]).toBe(1);
  });

  it('finds every duplicate key past the filter candidates it holds at once, with its line', async () => {
    // 12,000 distinct keys, each twice: more repeats than the run holds to check at once.
    const keys = products(12_000);
    feeds.set('/repeats.csv', { body: csv([...keys, ...keys]) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/repeats.csv', {}, server));
    await run(queueId, assetSourceId);
    const report = await bed.feedSources.report([ACCOUNT], queueId, { line: 0, seq: 0 }, 20_000);
    expect(report.run).toMatchObject({ rowsStored: 24_000, duplicateKeys: 12_000 });
    const duplicates = report.entries.filter((e) => e.kind === 'duplicate-key');
    expect(duplicates).toHaveLength(12_000);
    expect(duplicates[0]).toMatchObject({ line: 12_002, keyValue: 'P0' });
    expect(duplicates.at(-1)).toMatchObject({ line: 24_001, keyValue: 'P11999' });
  });

  it('holds a version that lost more than the guard allows (or is empty) until the owner confirms it', async () => {
    feeds.set('/shrinking.csv', { body: csv(products(100)) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/shrinking.csv', {}, server));
    await run(queueId, assetSourceId);

    feeds.set('/shrinking.csv', { body: csv(products(40)) });
    const shrunk = await bed.feedSources.replace(ACCOUNT, assetSourceId, input('/shrinking.csv', {}, server));
    expect(String((await rejectionOf(run(shrunk.queueId, assetSourceId))).message)).toMatch(
      /^Held: the new version has 40 rows, 60% fewer than the 100 serving/,
    );
    expect((await bed.assetSources.get(ACCOUNT, assetSourceId)).rowCount).toBe(100);
    expect((await bed.feedSources.settings(assetSourceId))?.held).toEqual({ queueId: shrunk.queueId, reason: expect.stringMatching(/^Held/) });
    // The held rows stay staged for the confirmation.
    await job().cleanup?.(request(shrunk.queueId, assetSourceId));
    expect(await bed.feedStore.rows.stagedCount(shrunk.queueId)).toBe(40);

    feeds.set('/shrinking.csv', { body: 'sku,name,price,weight\n' });
    const empty = await bed.feedSources.replace(ACCOUNT, assetSourceId, input('/shrinking.csv', {}, server));
    expect(String((await rejectionOf(run(empty.queueId, assetSourceId))).message)).toMatch(/^Held: the new version of the feed has no rows/);
    // The newer held version replaces the older one, whose staged rows are dropped.
    expect(await bed.feedStore.rows.stagedCount(shrunk.queueId)).toBe(0);
    expect((await bed.assetSources.get(ACCOUNT, assetSourceId)).rowCount).toBe(100);

    const confirmed = await bed.feedSources.confirmHeld(ACCOUNT, assetSourceId);
    expect(confirmed).toEqual({ queueId: empty.queueId, rowCount: 0 });
    expect((await bed.feedSources.report([ACCOUNT], empty.queueId, { line: 0, seq: 0 }, 1)).run.message).toBe('Confirmed by the owner: 0 rows serving.');
    expect((await bed.assetSources.get(ACCOUNT, assetSourceId)).rowCount).toBe(0);
    expect((await bed.feedSources.settings(assetSourceId))?.held).toBeNull();
    expect((await rejectionOf(bed.feedSources.confirmHeld(ACCOUNT, assetSourceId))).code).toBe('FEED_NOTHING_HELD');
  });

  it('supersedes the running run of an update committed while it waited for the source, judged by the settings under the lock', async () => {
    feeds.set('/a.csv', { body: csv(products(3)) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/a.csv', {}, server));
    await run(queueId, assetSourceId);
    // A second update, sent with the settings it read (the feed at /a.csv), waits for the source's row while a
    // first one commits: the feed moved to /b.csv and its run is reading it.
    const running = 'feed-run-of-the-first-update';
    const { started: second } = await whileSourceRowHeld(
      assetSourceId,
      () => bed.feedSources.replace(ACCOUNT, assetSourceId, input('/a.csv', {}, server)),
      async (first) => {
        await first('feed_sources')
          .where({ asset_source_id: assetSourceId })
          .update({ url: `${server.origin}/b.csv` });
        await bed.feedStore.feeds.insertRun(first, { queueId: running, assetSourceId, accountId: ACCOUNT, trigger: 'update' });
        await first('feed_runs').where({ queue_id: running }).update({ status: 'Processing' });
      },
    );
    // The run reading /b.csv must not serve after the second update put the feed back at /a.csv.
    const { queueId: secondRun } = await second;
    expect((await bed.feedStore.feeds.getRun(running))?.supersededBy).toBe(secondRun);
    // Both end, as their worker would end them: the cap counts neither after this.
    await bed.db.knex('feed_runs').where({ queue_id: running }).update({ status: 'Cancelled' });
    expect((await run(secondRun, assetSourceId)).message).toBe('Completed: 3 rows serving, 3 read.');
  });

  it('holds no version under missingRowPolicy keep for rows it lacks: they keep serving beside it', async () => {
    feeds.set('/rotating.csv', { body: csv(['A,a,1,1', 'B,b,1,1', 'C,c,1,1', 'D,d,1,1']) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/rotating.csv', { policies: { missingRowPolicy: 'keep' } }, server));
    await run(queueId, assetSourceId);
    // Today's feed has one new product and none of yesterday's: 75% fewer rows than serving, nothing lost.
    feeds.set('/rotating.csv', { body: csv(['E,e,1,1']) });
    const next = await bed.feedSources.refresh(ACCOUNT, assetSourceId);
    expect((await run(next.queueId, assetSourceId)).message).toBe('Completed: 5 rows serving (4 kept from the previous version), 1 read.');
    expect((await rows(assetSourceId)).map((r) => r.sku).sort()).toEqual(['A', 'B', 'C', 'D', 'E']);
  });

  it('refuses a confirm whose held version a newer run replaced while the confirm waited for the source', async () => {
    feeds.set('/confirm-race.csv', { body: csv(products(100)) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/confirm-race.csv', {}, server));
    await run(queueId, assetSourceId);
    feeds.set('/confirm-race.csv', { body: csv(products(40)) });
    const shrunk = await bed.feedSources.replace(ACCOUNT, assetSourceId, input('/confirm-race.csv', {}, server));
    await rejectionOf(run(shrunk.queueId, assetSourceId));
    expect((await bed.feedSources.settings(assetSourceId))?.held?.queueId).toBe(shrunk.queueId);

    // A newer run's swap holds the source's row while the owner confirms; it commits having served its own
    // version, which lets go of the held one.
    const { started: confirming } = await whileSourceRowHeld(
      assetSourceId,
      () => rejectionOf(bed.feedSources.confirmHeld(ACCOUNT, assetSourceId)),
      async (swapping) => {
        await swapping('feed_sources').where({ asset_source_id: assetSourceId }).update({ held_queue_id: null, held_reason: null });
      },
    );

    expect(await confirming).toMatchObject({ code: 'FEED_NOTHING_HELD', detail: expect.stringContaining('no longer holds version') });
    expect((await bed.assetSources.get(ACCOUNT, assetSourceId)).rowCount).toBe(100);
    expect(await rows(assetSourceId)).toHaveLength(100);
  });

  it.each([
    ['delete', ['A', 'C', 'D'], [], 'Completed: 3 rows serving, 3 read.'],
    ['keep', ['A', 'C', 'D', 'B'], [], 'Completed: 4 rows serving (1 kept from the previous version), 3 read.'],
    ['disable', ['A', 'C', 'D'], ['B'], 'Completed: 3 rows serving, 3 read; 1 row missing from the feed set aside (missingRowPolicy disable).'],
  ] as const)('follows missingRowPolicy %s for rows gone from the feed, and says what it did', async (policy, served, disabled, message) => {
    const path = `/policy-${policy}.csv`;
    feeds.set(path, { body: csv(['A,a,1,1', 'B,b,1,1', 'C,c,1,1']) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input(path, { policies: { missingRowPolicy: policy } }, server));
    await run(queueId, assetSourceId);
    feeds.set(path, { body: csv(['A,a,1,1', 'C,c,1,1', 'D,d,1,1']) });
    const next = await bed.feedSources.replace(ACCOUNT, assetSourceId, input(path, {}, server));
    expect((await run(next.queueId, assetSourceId)).message).toBe(message);
    expect((await rows(assetSourceId)).map((r) => r.sku)).toEqual(served);
    const aside = await bed.feedSources.disabledRows(ACCOUNT, assetSourceId);
    expect({ keys: aside.items.map((row) => row.keyValue), total: aside.total }).toEqual({ keys: disabled, total: disabled.length });
    expect((await bed.feedSources.settings(assetSourceId))?.disabledRows).toBe(disabled.length);
    // A disabled row is never mapped: content maps and campaigns look rows up by key.
    expect(await bed.assetSources.findRows(ACCOUNT, assetSourceId, 'sku', ['B'])).toEqual(policy === 'keep' ? [expect.objectContaining({ value: 'B' })] : []);
    if (policy === 'disable') {
      feeds.set(path, { body: csv(['A,a,1,1', 'B,b,2,1']) });
      const back = await bed.feedSources.replace(
        ACCOUNT,
        assetSourceId,
        input(path, { policies: { missingRowPolicy: 'disable', shrinkGuardPercent: 100 } }, server),
      );
      expect((await run(back.queueId, assetSourceId)).message).toBe(
        'Completed: 2 rows serving, 2 read; 2 rows missing from the feed set aside (missingRowPolicy disable).',
      );
      // B is back and serving again; C and D are held aside, listed by key a page at a time, as last served.
      const first = await bed.feedSources.disabledRows(ACCOUNT, assetSourceId, { offset: 0, limit: 1 });
      expect(first.total).toBe(2);
      expect(first.items.map((row) => [row.keyValue, JSON.parse(row.rowJson)])).toEqual([['C', { sku: 'C', name: 'c', price: '1', weight: '1' }]]);
      expect(first.items[0]?.disabledAt).toBeInstanceOf(Date);
      expect((await bed.feedSources.disabledRows(ACCOUNT, assetSourceId, { offset: 1, limit: 1 })).items.map((row) => row.keyValue)).toEqual(['D']);
      expect((await bed.feedSources.settings(assetSourceId))?.disabledRows).toBe(2);
      expect((await rejectionOf(bed.feedSources.disabledRows(ACCOUNT + 1, assetSourceId))).code).toBe('ASSET_SOURCE_NOT_FOUND');
    }
  });

  it.each(['keep', 'disable'] as const)(
    'matches keys exactly for missingRowPolicy %s, as duplicate keys are found: case and trailing spaces tell keys apart',
    async (policy) => {
      const path = `/exact-keys-${policy}.csv`;
      const settings = input(path, { policies: { missingRowPolicy: policy, shrinkGuardPercent: 100 } }, server);
      feeds.set(path, { body: csv(['SKU,upper,1,1', 'sku,lower,1,1', 'sku ,spaced,1,1']) });
      const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, settings);
      expect((await run(queueId, assetSourceId)).message).toBe('Completed: 3 rows serving, 3 read.');
      const readAgain = async (lines: string[]) => {
        feeds.set(path, { body: csv(lines) });
        await run((await bed.feedSources.replace(ACCOUNT, assetSourceId, settings)).queueId, assetSourceId);
      };
      const aside = async () => (await bed.feedSources.disabledRows(ACCOUNT, assetSourceId)).items.map((row) => row.keyValue);

      // Only "sku" is still in the feed: "SKU" and "sku " are rows of their own that went missing.
      await readAgain(['sku,lower,2,1']);
      if (policy === 'keep') {
        expect((await rows(assetSourceId)).map((r) => [r.sku, r.name])).toEqual([
          ['sku', 'lower'],
          ['SKU', 'upper'],
          ['sku ', 'spaced'],
        ]);
      } else {
        expect((await rows(assetSourceId)).map((r) => r.sku)).toEqual(['sku']);
        expect(await aside()).toEqual(['SKU', 'sku ']);
      }

      // Then "sku" goes too, beside the two set aside: each is a key of its own.
      await readAgain(['other,new,1,1']);
      if (policy === 'keep') expect((await rows(assetSourceId)).map((r) => r.sku)).toEqual(['other', 'sku', 'SKU', 'sku ']);
      else expect(await aside()).toEqual(['SKU', 'sku', 'sku ']);
    },
  );

  it('refuses a recommendation that maps a column the update waiting to be served drops', async () => {
    const path = '/recommended.csv';
    feeds.set(path, { body: csv(products(4)) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input(path, {}, server));
    await run(queueId, assetSourceId);
    const withoutPrice = { ...input('/').definition, columnNames: ['sku', 'name', 'weight'] };
    await bed.feedSources.replace(ACCOUNT, assetSourceId, input(path, { definition: withoutPrice }, server));
    const mapping = (assetSourceColumn: string) => ({
      updateFrequency: 24,
      config: { type: 'content' as const, maxRecommendations: 2, recommendationMap: [{ assetSourceColumn, dataType: 'string' as const }] },
    });
    const refused = await rejectionOf(bed.recommendations.create(ACCOUNT, assetSourceId, mapping('price')));
    expect(refused.code).toBe('VALIDATION_FAILED');
    expect(refused.errors).toEqual([
      {
        pointer: '/recommendationConfig/recommendationMap/0/assetSourceColumn',
        code: 'UNKNOWN_COLUMN',
        detail: '"price" is dropped by the source\'s update waiting to be served (feed.pendingColumns).',
      },
    ]);
    expect(await bed.recommendations.create(ACCOUNT, assetSourceId, mapping('name'))).toBeGreaterThan(0);

    // Nor on a feed whose update waiting to be served has no key (the feed below has no recommendation yet).
    const other = await bed.feedSources.create(ACCOUNT, input(path, {}, server));
    await run(other.queueId, other.assetSourceId);
    const keyless = { ...input('/').definition, columns: { ...input('/').definition.columns, assetKeyColumn: null } };
    await bed.feedSources.replace(ACCOUNT, other.assetSourceId, input(path, { definition: keyless }, server));
    expect((await rejectionOf(bed.recommendations.create(ACCOUNT, other.assetSourceId, mapping('name')))).code).toBe('ASSET_SOURCE_HAS_NO_KEY');
  });

  it('projects the rows the keep policy carries over onto the columns of the version they join', async () => {
    const path = '/kept-columns.csv';
    feeds.set(path, { body: csv(['A,a,1.00,1', 'B,b,2.00,1']) });
    const keep = { policies: { missingRowPolicy: 'keep' as const } };
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input(path, keep, server));
    await run(queueId, assetSourceId);
    // The next version drops price and brings colour; B is gone from it and kept.
    feeds.set(path, { body: 'sku,name,colour,weight\nA,a,red,1\n' });
    const definition = { ...input('/').definition, columnNames: ['sku', 'name', 'colour', 'weight'] };
    const next = await bed.feedSources.replace(ACCOUNT, assetSourceId, input(path, { ...keep, definition }, server));
    expect((await run(next.queueId, assetSourceId)).message).toBe('Completed: 2 rows serving (1 kept from the previous version), 1 read.');
    expect(await rows(assetSourceId)).toEqual([
      { sku: 'A', name: 'a', colour: 'red', weight: '1' },
      { sku: 'B', name: 'b', colour: '', weight: '1' },
    ]);
    expect((await bed.assetSources.findRows(ACCOUNT, assetSourceId, 'sku', ['B'])).map((r) => JSON.parse(r.rowJson))).toEqual([
      { sku: 'B', name: 'b', colour: '', weight: '1' },
    ]);
  });

  it('keeps the listed values of each generation with its rows: the retail feed list follows the swap and the keep policy', async () => {
    const path = '/listed.csv';
    const body = (lines: string[]) => `sku,name,category,weight\n${lines.join('\n')}\n`;
    const listed = (): FeedSourceInput => ({
      ...input(path, { policies: { missingRowPolicy: 'keep' } }, server),
      definition: { ...input(path).definition, columnNames: ['sku', 'name', 'category', 'weight'] },
    });
    feeds.set(path, { body: body(['A,a,Shoes,1', 'B,b,Hats,1', 'C,c,shoes,1']) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, listed());
    await run(queueId, assetSourceId);
    await bed.retailFeed.set(ACCOUNT, assetSourceId);
    const categories = async () => (await bed.retailFeed.list(ACCOUNT, 'category', '', { offset: 0, limit: 100 })).items;
    expect(await categories()).toEqual(['Hats', 'Shoes']);
    // B (Hats) is gone from the new version and kept by the policy; Bags comes in.
    feeds.set(path, { body: body(['A,a,Shoes,1', 'C,c,Bags,1', 'D,d,Bags,1']) });
    const next = await bed.feedSources.replace(ACCOUNT, assetSourceId, listed());
    await run(next.queueId, assetSourceId);
    expect(await categories()).toEqual(['Bags', 'Hats', 'Shoes']);
    await job().cleanup?.(request(next.queueId, assetSourceId));
    const kept = await bed.db.execute<{ generation: number }>('SELECT DISTINCT generation FROM asset_source_row_values WHERE asset_source_id = ?', [
      assetSourceId,
    ]);
    expect(kept.map((r) => Number(r.generation))).toEqual([await generationsServed(assetSourceId)]);
  });

  it('keeps stored secrets on an update that leaves them out, and drops them when urlType, host or port changes', async () => {
    const created = await bed.feedSources.create(ACCOUNT, input('/x.csv', { secrets: { username: 'u1', password: 'p1' } }, server));
    await bed.feedSources.replace(ACCOUNT, created.assetSourceId, input('/x.csv', {}, server));
    const stored = async () => {
      const settings = await bed.feedSources.settings(created.assetSourceId);
      if (!settings) throw new Error('the feed settings are gone');
      return bed.feedSources.open(settings);
    };
    expect(await stored()).toEqual({ username: 'u1', password: 'p1' });
    await bed.feedSources.replace(
      ACCOUNT,
      created.assetSourceId,
      input('/x.csv', { location: { ...input('/x.csv', {}, server).location, urlType: 'http' } }, server),
    );
    expect(await stored()).toEqual({ username: 'u1', password: 'p1' });
    // Another host: the stored password is not sent there. A username alone is asked its password, saying why.
    const elsewhere = input('/x.csv', { location: { ...input('/x.csv').location, url: 'http://feeds.example.com:8080/x.csv' }, secrets: { username: 'u1' } });
    const refused = await rejectionOf(bed.feedSources.replace(ACCOUNT, created.assetSourceId, elsewhere));
    expect(refused).toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [{ pointer: '/urlConfig/password', code: 'REQUIRED', detail: expect.stringMatching(/stays with the feed's former server/) }],
    });
    expect(await stored()).toEqual({ username: 'u1', password: 'p1' });
    // The same host on another port, credentials left out: none go with it.
    await bed.feedSources.replace(
      ACCOUNT,
      created.assetSourceId,
      input('/x.csv', { location: { ...input('/x.csv').location, url: 'http://feeds.example.com:8080/x.csv' } }),
    );
    expect(await stored()).toEqual({});
    await bed.feedSources.replace(ACCOUNT, created.assetSourceId, input('/x.csv', { secrets: { username: 'u2', password: 'p2' } }, server));
    await bed.feedSources.replace(
      ACCOUNT,
      created.assetSourceId,
      input('/x.csv', { location: { urlType: 'ftp', url: 'ftp://feeds.example.com/x.csv', fileId: null, urlConfig: {} } }),
    );
    expect(await stored()).toEqual({});
  });

  it('runs one ingestion of a source at a time, across replicas: a run that finds another under way waits for it', async () => {
    feeds.set('/busy.csv', { body: csv(products(3000)) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/busy.csv', {}, server));
    await run(queueId, assetSourceId);
    feeds.set('/busy.csv', { body: csv(products(3000)), delayMs: 1_500 });
    const first = await bed.feedSources.refresh(ACCOUNT, assetSourceId);
    expect(first.outcome).toBe('queued');
    // A refresh while a run is still queued is that run.
    expect(await bed.feedSources.refresh(ACCOUNT, assetSourceId)).toEqual({ queueId: first.queueId, outcome: 'joined' });
    servedAt.delete('/busy.csv');

    // Two job handlers, as on two replicas, each with its own reader: the second starts while the first reads.
    const firstRun = run(first.queueId, assetSourceId);
    await waitUntil(async () => (await runOf(first.queueId)).status === 'Processing', { what: 'the first run to start' });
    const second = await bed.feedSources.refresh(ACCOUNT, assetSourceId);
    expect(second.queueId).not.toBe(first.queueId);
    const waiting: string[] = [];
    let idleWaits = 0;
    const secondRun = job().run(request(second.queueId, assetSourceId), {
      progress: async (_done, _total, message) => void waiting.push(message ?? ''),
      // The runner frees the run's concurrency slot for what it waits in here.
      idle: async (wait) => {
        idleWaits += 1;
        return wait();
      },
      stopping: new AbortController().signal,
    });
    await Promise.all([firstRun, secondRun]);

    const [a, b] = [await runOf(first.queueId), await runOf(second.queueId)];
    expect([a.status, b.status]).toEqual(['Completed', 'Completed']);
    expect(waiting[0]).toBe('Waiting for the run of this feed source under way to end');
    expect(idleWaits).toBeGreaterThan(0);
    // The second asked for the feed only once the first had ended.
    const [firstServed, secondServed] = servedAt.get('/busy.csv') ?? [];
    expect(secondServed).toBeGreaterThanOrEqual((a.finishedAt as Date).getTime());
    expect(firstServed).toBeLessThan((a.finishedAt as Date).getTime());
    expect((await bed.assetSources.get(ACCOUNT, assetSourceId)).rowCount).toBe(3000);
  });

  it('a run the runner gives up on ends Failed on its row too, so it no longer counts as under way', async () => {
    feeds.set('/given-up.csv', { body: csv(products(2)) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/given-up.csv', {}, server));
    await job().failed?.(request(queueId, assetSourceId), 'Failed after 5 attempts.');
    expect(await runOf(queueId)).toMatchObject({ status: 'Failed', message: 'Failed after 5 attempts. The rows already serving are unchanged.' });
    expect(await bed.feedStore.feeds.queuedRunOf(assetSourceId)).toBeUndefined();
    // A run that had already ended keeps its end.
    await job().failed?.(request(queueId, assetSourceId), 'Another message.');
    expect((await runOf(queueId)).message).toBe('Failed after 5 attempts. The rows already serving are unchanged.');
  });

  it("refuses a run past the account's cap on queued and running feed runs with 429, writing nothing, and starts a due one once a run ended", async () => {
    const account = ACCOUNT + 1;
    // Called as a key would call them: the sources it creates enter the audit trail.
    const capped = actingAs(
      createAssetSourcesServices({
        db: bed.db,
        logger,
        remote: { allowlist: '', timeoutMs: 2_000, maxBytes: 1024 },
        events: createEventOutbox(naming(bed.prefix)),
        box: createSecretBox(developmentKey('asset-sources-test')),
        now: () => clock,
        feedRunCap: 2,
        feedSweepBatch: 1,
      }),
      TEST_PRINCIPAL,
    );
    const runOf = (started: { queueId: string; assetSourceId: number }) =>
      job().run({ ...request(started.queueId, started.assetSourceId), accountId: account }, sink);
    feeds.set('/capped.csv', { body: csv(products(5)) });
    const schedule = { isScheduled: true, frequency: 'DAILY' as const, startTime: '06:00', endDate: null };
    const scheduled = await capped.feedSources.create(account, input('/capped.csv', { schedule }, server));
    await runOf(scheduled);
    const first = await capped.feedSources.create(account, input('/capped.csv', {}, server));
    await capped.feedSources.create(account, input('/capped.csv', {}, server));
    const sourcesBefore = await bed.db.knex('asset_sources').where({ account_id: account }).count({ n: '*' });
    const runsBefore = await bed.db.knex('feed_runs').where({ account_id: account }).count({ n: '*' });

    expect(await rejectionOf(capped.feedSources.create(account, input('/capped.csv', {}, server)))).toMatchObject({ code: 'JOB_LIMIT_REACHED', status: 429 });
    expect(await rejectionOf(capped.feedSources.replace(account, scheduled.assetSourceId, input('/capped.csv', { schedule }, server)))).toMatchObject({
      code: 'JOB_LIMIT_REACHED',
    });
    // Nothing half-written: no new source, no new run.
    expect(await bed.db.knex('asset_sources').where({ account_id: account }).count({ n: '*' })).toEqual(sourcesBefore);
    expect(await bed.db.knex('feed_runs').where({ account_id: account }).count({ n: '*' })).toEqual(runsBefore);

    // A scheduled source that falls due while the account is full stays due, and starts once a run has ended.
    const due = new Date(clock.getTime() - 1_000);
    await bed.db.knex('feed_sources').where({ asset_source_id: scheduled.assetSourceId }).update({ next_run_at: due });
    expect(await capped.feedSources.startDueRuns()).toBe(0);
    expect((await capped.feedSources.settings(scheduled.assetSourceId))?.nextRunAt?.getTime()).toBe(due.getTime());
    // Nor does it keep another account's source due after it from starting (the sweep reads one due source at a time here).
    const otherAccount = ACCOUNT + 2;
    const otherScheduled = await capped.feedSources.create(otherAccount, input('/capped.csv', { schedule }, server));
    await job().run({ ...request(otherScheduled.queueId, otherScheduled.assetSourceId), accountId: otherAccount }, sink);
    await bed.db
      .knex('feed_sources')
      .where({ asset_source_id: otherScheduled.assetSourceId })
      .update({ next_run_at: new Date(due.getTime() + 500) });
    expect(await capped.feedSources.startDueRuns()).toBe(1);
    expect(await bed.feedStore.feeds.queuedRunOf(otherScheduled.assetSourceId)).toBeDefined();
    expect((await capped.feedSources.settings(scheduled.assetSourceId))?.nextRunAt?.getTime()).toBe(due.getTime());
    await runOf(first);
    expect(await capped.feedSources.startDueRuns()).toBe(1);
  });

  it('starts a due scheduled run once whichever replicas sweep, and skips a feed that did not change', async () => {
    clock = new Date('2026-11-24T12:00:00Z');
    feeds.set('/daily.csv', { body: csv(products(10)), etag: '"v1"' });
    const schedule = { isScheduled: true, frequency: 'DAILY' as const, startTime: '06:00', endDate: null };
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/daily.csv', { schedule }, server));
    await run(queueId, assetSourceId);
    const settings = await bed.feedSources.settings(assetSourceId);
    expect(settings?.nextRunAt?.toISOString()).toBe('2026-11-25T11:00:00.000Z'); // 06:00 EST

    clock = new Date('2026-11-25T11:00:30Z');
    // A second replica: the same services built again over the same schema. Both sweep at once.
    const replica = createAssetSourcesServices({
      db: bed.db,
      logger,
      remote: { allowlist: '', timeoutMs: 2_000, maxBytes: 1024 },
      events: createEventOutbox(naming(bed.prefix)),
      box: createSecretBox(developmentKey('asset-sources-test')),
      now: () => clock,
    });
    const started = await Promise.all([bed.feedSources.startDueRuns(), replica.feedSources.startDueRuns()]);
    expect(started[0] + started[1]).toBe(1);
    const runs = await bed.db.knex('feed_runs').where({ asset_source_id: assetSourceId, run_trigger: 'schedule' }).select('queue_id');
    expect(runs).toHaveLength(1);
    expect((await bed.feedSources.settings(assetSourceId))?.nextRunAt?.toISOString()).toBe('2026-11-26T11:00:00.000Z');

    const skipped = await run(runs[0].queue_id, assetSourceId);
    expect(skipped.message).toBe('Skipped: the feed is unchanged (ETag).');

    // Unchanged bytes under a new ETag: skipped by the content hash.
    clock = new Date('2026-11-26T11:00:30Z');
    feeds.set('/daily.csv', { body: csv(products(10)), etag: '"v2"' });
    await bed.feedSources.startDueRuns();
    const [latest] = await bed.db.knex('feed_runs').where({ asset_source_id: assetSourceId, status: 'Queued' }).select('queue_id');
    expect((await run(latest.queue_id, assetSourceId)).message).toBe('Skipped: the feed is unchanged (content hash).');
    expect((await bed.feedSources.report([ACCOUNT], latest.queue_id, { line: 0, seq: 0 }, 1)).run.status).toBe('Skipped');

    // An update whose own run never served (cancelled here): the unchanged feed is read again on schedule, with its settings.
    const renamed = { ...input('/daily.csv', { schedule }, server), definition: { ...input('/').definition, columnNames: ['sku', 'name', 'price'] } };
    renamed.definition.columns = { ...renamed.definition.columns, rotationWeightColumn: null };
    const update = await bed.feedSources.replace(ACCOUNT, assetSourceId, renamed);
    await bed.feedSources.cancelRun(ACCOUNT, update.queueId);
    clock = new Date('2026-11-27T11:00:30Z');
    await bed.feedSources.startDueRuns();
    const [due] = await bed.db.knex('feed_runs').where({ asset_source_id: assetSourceId, status: 'Queued' }).select('queue_id');
    expect((await run(due.queue_id, assetSourceId)).message).toBe('Completed: 10 rows serving, 10 read.');
    expect((await rows(assetSourceId))[0]).toEqual({ sku: 'P0', name: 'Product 0', price: '0.99' });
    clock = new Date('2026-11-28T11:00:30Z');
    await bed.feedSources.startDueRuns();
    const [next] = await bed.db.knex('feed_runs').where({ asset_source_id: assetSourceId, status: 'Queued' }).select('queue_id');
    expect((await run(next.queue_id, assetSourceId)).message).toBe('Skipped: the feed is unchanged (ETag).');
  });

  it("lists a source's runs newest first, a page at a time, for its own account and kind only", async () => {
    clock = new Date('2026-11-27T12:00:00Z');
    feeds.set('/listed-runs.csv', { body: csv(products(3)) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/listed-runs.csv', {}, server));
    await run(queueId, assetSourceId);
    clock = new Date('2026-11-27T12:05:00Z');
    feeds.set('/listed-runs.csv', { body: 'not,a\n"broken' });
    const update = await bed.feedSources.replace(ACCOUNT, assetSourceId, input('/listed-runs.csv', {}, server));
    await rejectionOf(run(update.queueId, assetSourceId));

    const page = await bed.feedSources.runs(ACCOUNT, assetSourceId, { offset: 0, limit: 10 });
    expect(page.total).toBe(2);
    expect(page.items.map((r) => [r.queueId, r.trigger, r.status])).toEqual([
      [update.queueId, 'update', 'Failed'],
      [queueId, 'create', 'Completed'],
    ]);
    expect(page.items[1]).toMatchObject({ rowsRead: 3, rowsStored: 3, message: 'Completed: 3 rows serving, 3 read.' });
    expect((await bed.feedSources.runs(ACCOUNT, assetSourceId, { offset: 1, limit: 1 })).items.map((r) => r.queueId)).toEqual([queueId]);
    // Missing values take the defaults.
    expect((await bed.feedSources.runs(ACCOUNT, assetSourceId, {})).items).toHaveLength(2);

    expect((await rejectionOf(bed.feedSources.runs(ACCOUNT + 1, assetSourceId))).code).toBe('ASSET_SOURCE_NOT_FOUND');
    const inline = await inlineSource();
    expect((await rejectionOf(bed.feedSources.runs(ACCOUNT, inline))).code).toBe('ASSET_SOURCE_KIND_MISMATCH');
  });

  it('answers refreshes sent at once with one run', async () => {
    feeds.set('/twice.csv', { body: csv(products(2)) });
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/twice.csv', {}, server));
    await run(queueId, assetSourceId);
    const answers = await Promise.all([1, 2, 3].map(() => bed.feedSources.refresh(ACCOUNT, assetSourceId)));
    expect(new Set(answers.map((a) => a.queueId)).size).toBe(1);
    expect(answers.map((a) => a.outcome).sort()).toEqual(['joined', 'joined', 'queued']);
    expect(await bed.db.knex('feed_runs').where({ asset_source_id: assetSourceId, status: 'Queued' }).count({ n: '*' })).toEqual([{ n: 1 }]);
  });

  it('refreshes a source now with its stored settings and credentials, ingesting even an unchanged feed, for its own account and kind only', async () => {
    feeds.set('/refreshed.csv', { body: csv(products(4)), etag: '"same"' });
    const { assetSourceId, queueId } = await bed.feedSources.create(
      ACCOUNT,
      input(
        '/refreshed.csv',
        { secrets: { username: 'u', password: 'p' }, schedule: { isScheduled: true, frequency: 'DAILY', startTime: '06:00', endDate: null } },
        server,
      ),
    );
    await run(queueId, assetSourceId);
    feeds.set('/refreshed.csv', { body: csv(products(6)), etag: '"same"' });
    const refreshed = await bed.feedSources.refresh(ACCOUNT, assetSourceId);
    // The ETag did not change, so a scheduled run would skip; the owner's refresh reads it.
    expect((await run(refreshed.queueId, assetSourceId)).message).toBe('Completed: 6 rows serving, 6 read.');
    expect((await bed.feedSources.runs(ACCOUNT, assetSourceId)).items[0]).toMatchObject({
      queueId: refreshed.queueId,
      trigger: 'refresh',
      status: 'Completed',
    });
    const settings = await bed.feedSources.settings(assetSourceId);
    expect(settings && bed.feedSources.open(settings)).toEqual({ username: 'u', password: 'p' });

    expect((await rejectionOf(bed.feedSources.refresh(ACCOUNT + 1, assetSourceId))).code).toBe('ASSET_SOURCE_NOT_FOUND');
    const inline = await inlineSource();
    expect((await rejectionOf(bed.feedSources.refresh(ACCOUNT, inline))).code).toBe('ASSET_SOURCE_KIND_MISMATCH');
  });

  it('reads endDate back as the day given, and starts no scheduled run after it', async () => {
    clock = new Date('2026-11-24T12:00:00Z');
    feeds.set('/ending.csv', { body: csv(products(10)) });
    const schedule = { isScheduled: true, frequency: 'DAILY' as const, startTime: '06:00', endDate: '2026-11-25' };
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/ending.csv', { schedule }, server));
    await run(queueId, assetSourceId);
    const settings = await bed.feedSources.settings(assetSourceId);
    expect(settings?.schedule.endDate).toBe('2026-11-25');
    expect(settings?.nextRunAt?.toISOString()).toBe('2026-11-25T11:00:00.000Z');

    // The run on the last day starts; the sweep then finds no later run within endDate.
    const scheduledRuns = async () =>
      Number((await bed.db.knex('feed_runs').where({ asset_source_id: assetSourceId, run_trigger: 'schedule' }).count({ n: '*' }))[0].n);
    clock = new Date('2026-11-25T11:00:30Z');
    await bed.feedSources.startDueRuns();
    expect(await scheduledRuns()).toBe(1);
    expect((await bed.feedSources.settings(assetSourceId))?.nextRunAt).toBeNull();
    clock = new Date('2026-11-26T11:00:30Z');
    await bed.feedSources.startDueRuns();
    expect(await scheduledRuns()).toBe(1);
  });

  it('keeps a weekly feed on its weekday through an update that leaves the schedule as it was, and plans anew when it changes', async () => {
    clock = new Date('2026-11-24T12:00:00Z'); // a Tuesday, 07:00 US Eastern
    feeds.set('/weekly.csv', { body: csv(products(3)) });
    const schedule = { isScheduled: true, frequency: 'WEEKLY' as const, startTime: '06:00', endDate: null };
    const { assetSourceId, queueId } = await bed.feedSources.create(ACCOUNT, input('/weekly.csv', { schedule }, server));
    await run(queueId, assetSourceId);
    const planned = (await bed.feedSources.settings(assetSourceId))?.nextRunAt?.toISOString();
    expect(planned).toBe('2026-11-25T11:00:00.000Z'); // Wednesday 06:00 EST, and every Wednesday after

    clock = new Date('2026-11-27T15:00:00Z'); // Friday: renamed
    const renamed = await bed.feedSources.replace(ACCOUNT, assetSourceId, {
      ...input('/weekly.csv', { schedule }, server),
      definition: { ...input('/weekly.csv').definition, assetSourceName: 'Weekly, renamed' },
    });
    await run(renamed.queueId, assetSourceId);
    expect((await bed.feedSources.settings(assetSourceId))?.nextRunAt?.toISOString()).toBe(planned);

    const later = await bed.feedSources.replace(ACCOUNT, assetSourceId, input('/weekly.csv', { schedule: { ...schedule, startTime: '07:00' } }, server));
    await run(later.queueId, assetSourceId);
    expect((await bed.feedSources.settings(assetSourceId))?.nextRunAt?.toISOString()).toBe('2026-11-28T12:00:00.000Z'); // Saturday 07:00 EST
  });

  it('refuses a schedule whose endDate leaves it no run, on create and on update, writing nothing', async () => {
    clock = new Date('2026-11-24T12:00:00Z'); // 07:00 US Eastern
    feeds.set('/ended.csv', { body: csv(products(2)) });
    const schedule = (frequency: 'DAILY' | 'HOURLY', startTime: string, endDate: string) => ({
      schedule: { isScheduled: true, frequency, startTime, endDate },
    });
    const sources = async () => Number((await bed.db.knex('asset_sources').where({ account_id: ACCOUNT }).count({ n: '*' }))[0].n);
    const before = await sources();
    for (const [refused, next] of [
      [schedule('DAILY', '06:00', '2026-11-23'), 'DAILY run at 06:00 US Eastern'],
      [schedule('DAILY', '06:00', '2026-11-24'), 'DAILY run at 06:00 US Eastern'],
      [schedule('HOURLY', '06:30', '2026-11-23'), 'HOURLY run at minute 30 of the hour'],
    ] as const) {
      const error = await rejectionOf(bed.feedSources.create(ACCOUNT, input('/ended.csv', refused, server)));
      expect(error.errors).toEqual([
        expect.objectContaining({
          pointer: '/endDate',
          code: 'OUT_OF_RANGE',
          detail: expect.stringMatching(new RegExp(`next ${next} falls after endDate .* \\(today is 2026-11-24 US Eastern\\)`)),
        }),
      ]);
    }
    expect(await sources()).toBe(before);

    // A run still ahead today, daily or hourly, is a schedule.
    const daily = await bed.feedSources.create(ACCOUNT, input('/ended.csv', schedule('DAILY', '08:00', '2026-11-24'), server));
    expect((await bed.feedSources.settings(daily.assetSourceId))?.nextRunAt?.toISOString()).toBe('2026-11-24T13:00:00.000Z');
    const hourly = await bed.feedSources.create(ACCOUNT, input('/ended.csv', schedule('HOURLY', '06:30', '2026-11-24'), server));
    expect((await bed.feedSources.settings(hourly.assetSourceId))?.nextRunAt?.toISOString()).toBe('2026-11-24T12:30:00.000Z');

    // Later, an update that keeps the spent endDate is refused; one that ends the schedule is taken.
    clock = new Date('2026-11-25T12:00:00Z');
    const kept = await rejectionOf(
      bed.feedSources.replace(ACCOUNT, daily.assetSourceId, input('/ended.csv', schedule('DAILY', '08:00', '2026-11-24'), server)),
    );
    expect(kept.errors).toEqual([expect.objectContaining({ pointer: '/endDate', code: 'OUT_OF_RANGE' })]);
    const ended = { schedule: { isScheduled: false, frequency: 'DAILY' as const, startTime: '08:00', endDate: '2026-11-24' } };
    await bed.feedSources.replace(ACCOUNT, daily.assetSourceId, input('/ended.csv', ended, server));
    expect(await bed.feedSources.settings(daily.assetSourceId)).toMatchObject({ schedule: { isScheduled: false }, nextRunAt: null });
  });
});
