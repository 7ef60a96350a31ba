import { ASSET_SOURCE_ROW_MAX_BYTES } from '@contracts/domain';
import { AppError } from '@platform/errors';
import { startSilentTcpServer } from '@platform/testing';
import { openAssetSourcesTestBed, type AssetSourcesTestBed } from '../asset-sources.test-support';
import type { FeedReadInput } from './feed-source.rules';
import { startFeedHttpServer, type FeedHttpServer } from './reading/feed-test-servers';

jest.setTimeout(60_000);

const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as AppError,
  );

describe('process (36): the head of a feed (real MariaDB test bed, a real HTTP server on loopback)', () => {
  let bed: AssetSourcesTestBed;
  let server: FeedHttpServer;
  let silent: Awaited<ReturnType<typeof startSilentTcpServer>>;
  let endlessRowsWritten = 0;
  let endlessClosed = false;

  beforeAll(async () => {
    server = await startFeedHttpServer((req, res) => {
      if (req.url === '/products.csv') {
        res.end('sku,name,price\n' + Array.from({ length: 150 }, (_, i) => `S${i % 7},Item ${i},${i}.00`).join('\n') + '\n');
      } else if (req.url === '/endless.csv') {
        // A feed far larger than its head: process must stop reading it, not wait for its end.
        res.writeHead(200, { 'content-type': 'text/csv' });
        res.write('sku,name\n');
        res.on('close', () => (endlessClosed = true));
        const pump = () => {
          while (!res.destroyed && endlessRowsWritten < 5_000_000) {
            endlessRowsWritten++;
            if (!res.write(`E${endlessRowsWritten},Row ${endlessRowsWritten}\n`)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
      } else if (req.url === '/latin1.csv' || req.url === '/latin1.json') {
        // A spreadsheet export in ISO-8859-1: é is one byte, 0xE9, which UTF-8 never has alone.
        const csv = req.url.endsWith('.csv');
        res.end(Buffer.from(csv ? 'sku,name\nC1,Café\nC2,Crème\n' : '[{"sku":"C1","name":"Café"}]', 'latin1'));
      } else if (req.url === '/rough.csv') {
        // An unquoted comma, a short row and a description past a stored row's size, among good rows.
        const long = 'x'.repeat(ASSET_SOURCE_ROW_MAX_BYTES);
        res.end(`sku,name,price\nR1,ok,1\nR2,Cherry, red,2\nR3,short\nR4,${long},4\nR5,fine,5\n`);
      } else if (req.url === '/items.json') {
        res.end(
          JSON.stringify({
            total: 2,
            items: [
              { sku: 'J1', price: { amount: 1 } },
              { sku: 'J2', price: { amount: 2 }, tags: ['new'] },
            ],
          }),
        );
      } else if (req.url === '/merchant.xml') {
        res.end(
          '<rss xmlns:g="http://base.google.com/ns/1.0"><channel><title>t</title>' +
            '<item><g:id>P1</g:id><g:price>1.00 EUR</g:price></item><item><g:id>P2</g:id><g:price>2.00 EUR</g:price></item></channel></rss>',
        );
      } else res.writeHead(404).end();
    });
    silent = await startSilentTcpServer();
    bed = await openAssetSourcesTestBed('afproc', { allowlist: `${server.hostPort},${silent.hostPort}` });
  });
  afterAll(async () => {
    await bed?.close();
    await server?.close();
    await silent?.close();
  });

  const input = (
    over: Partial<FeedReadInput['format']> & { url?: string; location?: Partial<FeedReadInput['location']>; secrets?: FeedReadInput['secrets'] } = {},
  ): FeedReadInput => {
    const { url, location, secrets, ...format } = over;
    return {
      location: { urlType: 'http', url: url ?? `${server.origin}/products.csv`, fileId: null, urlConfig: {}, ...location },
      secrets: secrets ?? {},
      format: {
        contentType: 'csv',
        characterEncoding: 'UTF_8',
        csvSeparator: 'auto',
        firstRowIsHeader: true,
        cdp: false,
        customCode: null,
        feedConfig: null,
        ...format,
      },
    };
  };

  it('answers config, sample values per column and no cdpLogs for a CSV feed', async () => {
    const { config, sample, cdpLogs } = await bed.feedProcess.process(1, input());
    expect(config).toMatchObject({ csvColumns: { sku: 0, name: 1, price: 2 }, cdp: false, fileId: '', rootIsArray: false });
    expect(config.memPerRow).toBeGreaterThan(20);
    expect(config.estRowsPerChunk).toBe(Math.floor((4 * 1024 * 1024) / config.memPerRow));
    expect(sample).toEqual({
      sku: ['S0', 'S1', 'S2', 'S3', 'S4'],
      name: ['Item 0', 'Item 1', 'Item 2', 'Item 3', 'Item 4'],
      price: ['0.00', '1.00', '2.00', '3.00', '4.00'],
    });
    expect(cdpLogs).toEqual([]);
  });

  it('warns that a feed read as UTF-8 is not, naming where, and reads it right in the encoding the owner then sets', async () => {
    const advice = 'set characterEncoding to its encoding (CP1252 or iso_8859_1 for most spreadsheet exports).';
    const asUtf8 = await bed.feedProcess.process(1, input({ url: `${server.origin}/latin1.csv` }));
    expect(asUtf8.warnings).toEqual([`The feed is not UTF-8 from byte 15 on (0xE9), so some of its text reads wrong: ${advice}`]);
    expect(asUtf8.sample.name).toEqual(['Caf\uFFFD', 'Cr\uFFFDme']);
    const json = await bed.feedProcess.process(1, input({ url: `${server.origin}/latin1.json`, contentType: 'json' }));
    expect(json.warnings).toEqual([`The feed is not UTF-8 from byte 24 on (0xE9), so some of its text reads wrong: ${advice}`]);
    const asLatin1 = await bed.feedProcess.process(1, input({ url: `${server.origin}/latin1.csv`, characterEncoding: 'iso_8859_1' }));
    expect(asLatin1).toMatchObject({ warnings: [], sample: { name: ['Café', 'Crème'] } });
    expect((await bed.feedProcess.process(1, input())).warnings).toEqual([]);
  });

  it('warns of the rows in the head a run would reject, with their lines, as the sample leaves them out', async () => {
    const { warnings, sample } = await bed.feedProcess.process(1, input({ url: `${server.origin}/rough.csv` }));
    expect(sample.sku).toEqual(['R1', 'R4', 'R5']);
    const rowBytes = Buffer.byteLength(JSON.stringify({ sku: 'R4', name: 'x'.repeat(ASSET_SOURCE_ROW_MAX_BYTES), price: '4' }));
    expect(warnings).toEqual([
      '2 of the 5 rows read are rejected (line 3: The row has 4 fields where the header has 3; line 4: The row has 2 fields where the header has 3).',
      `1 of the 5 rows read is over the ${ASSET_SOURCE_ROW_MAX_BYTES} bytes a stored row may have (line 5: ${rowBytes} bytes): ` +
        'a run rejects such a row unless columnNames leaves enough of it out.',
    ]);
  });

  it('reads only the head of a feed and closes the connection', async () => {
    const { sample } = await bed.feedProcess.process(1, input({ url: `${server.origin}/endless.csv` }));
    expect(sample.sku).toEqual(['E1', 'E2', 'E3', 'E4', 'E5']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(endlessClosed).toBe(true);
    expect(endlessRowsWritten).toBeLessThan(5_000_000);
  });

  it.each([
    ['http', {}, {}],
    ['ftp', {}, {}],
    ['sftp', {}, { username: 'feeder', password: 'pw' }],
  ] as const)(
    'stops waiting on a %s host that never answers when its caller stops waiting, and says which host (not the caller timing out)',
    async (urlType, urlConfig, secrets) => {
      const url = `${urlType}://${silent.hostPort}/products.csv`;
      // The reader's own cap is 2 s here; the caller waits 300 ms.
      const error = await errorOf(bed.feedProcess.process(1, input({ url, location: { urlType, url, urlConfig }, secrets }), { timeoutMs: 300 }));
      expect(error).toMatchObject({ code: 'FEED_UNREACHABLE', extensions: { cause: 'OUTBOUND_TIMEOUT' } });
      expect(error?.detail).toBe(`Fetching ${url} did not finish within 300 ms.`);
    },
  );

  it('detects the row element and leaf paths of a Google-Merchant XML feed', async () => {
    const { config, sample } = await bed.feedProcess.process(1, input({ url: `${server.origin}/merchant.xml`, contentType: 'xml' }));
    expect(config).toMatchObject({ rowXPath: '/rss/channel/item', xpathMap: { id: 'g:id', price: 'g:price' } });
    expect(sample).toEqual({ id: ['P1', 'P2'], price: ['1.00 EUR', '2.00 EUR'] });
  });

  it("names a JSON feed's columns, its rows' dotted member paths, in xpathMap: a create from the config checks columnNames against them", async () => {
    const { config, sample } = await bed.feedProcess.process(1, input({ url: `${server.origin}/items.json`, contentType: 'json' }));
    expect(config).toMatchObject({ rootIsObject: true, rowXPath: 'items', xpathMap: { sku: 'sku', 'price.amount': 'price.amount', 'tags.0': 'tags.0' } });
    expect(sample).toEqual({ sku: ['J1', 'J2'], 'price.amount': ['1', '2'], 'tags.0': ['new'] });
    const create = (columnNames: string[]) =>
      bed.feedSources.create(1, {
        definition: {
          assetSourceName: 'JSON items',
          columnNames,
          columns: { assetKeyColumn: 'sku', assetVariantColumn: null, assetGroupColumn: null, reportingColumn: null, rotationWeightColumn: null },
          contentType: null,
        },
        location: { urlType: 'http', url: `${server.origin}/items.json`, fileId: null, urlConfig: {} },
        secrets: {},
        format: { ...input().format, contentType: 'json', feedConfig: config },
        schedule: { isScheduled: false, frequency: null, startTime: null, endDate: null },
        policies: {},
      });
    const refused = await errorOf(create(['sku', 'price']));
    expect(refused).toMatchObject({ code: 'VALIDATION_FAILED', errors: [expect.objectContaining({ pointer: '/columnNames/1', code: 'UNKNOWN_COLUMN' })] });
    expect((await create(['sku', 'price.amount'])).queueId).toEqual(expect.any(String));
  });

  it('runs customCode over the head and answers its console output in cdpLogs', async () => {
    const customCode =
      'console.log("price", row.price); if (row.price === "1.00") throw new Error("no"); return { sku: row.sku, cents: Number(row.price) * 100 };';
    const { config, sample, cdpLogs } = await bed.feedProcess.process(1, input({ cdp: true, customCode }));
    expect(config.cdp).toBe(true);
    expect(config.cdpXpathMap).toEqual({ sku: 'sku', cents: 'cents' });
    expect(sample.cents).toEqual(['0', '200', '300', '400', '500']);
    expect(cdpLogs.slice(0, 3)).toEqual(['price 0.00', 'price 1.00', 'line 3: customCode failed: Error: no']);
  });

  it('refuses each bad enumeration and the urlConfig a urlType does not take or needs, naming the fields', async () => {
    const bad = await errorOf(
      bed.feedProcess.process(1, {
        ...input(),
        location: { urlType: 'gopher' as never, url: 'gopher://x', fileId: null, urlConfig: {} },
        format: { ...input().format, contentType: 'yaml' as never, characterEncoding: 'latin9' as never, csvSeparator: 'semicolon' as never },
      }),
    );
    expect(bad?.code).toBe('VALIDATION_FAILED');
    expect(bad?.errors?.map((e) => ('pointer' in e ? e.pointer : ''))).toEqual(
      expect.arrayContaining(['/urlType', '/contentType', '/characterEncoding', '/csvSeparator']),
    );
    const objstore = await errorOf(bed.feedProcess.process(1, input({ location: { urlType: 'objstore', url: 's3://b/k' }, secrets: { accessKey: 'A' } })));
    expect(objstore?.errors).toEqual([expect.objectContaining({ pointer: '/urlConfig/secretKey', code: 'REQUIRED' })]);
    const sftp = await errorOf(bed.feedProcess.process(1, input({ location: { urlType: 'sftp', url: 'sftp://h/f.csv', urlConfig: { httpMethod: 'GET' } } })));
    expect(sftp?.errors?.map((e) => ('pointer' in e ? e.pointer : ''))).toEqual(
      expect.arrayContaining(['/urlConfig/httpMethod', '/urlConfig/username', '/urlConfig/password']),
    );
    const cdp = await errorOf(bed.feedProcess.process(1, input({ cdp: true, customCode: '' })));
    expect(cdp?.errors).toEqual([expect.objectContaining({ pointer: '/customCode', code: 'REQUIRED' })]);
  });

  it('answers a 404 feed, a body that is not a feed and an unreachable or refused host with their causes', async () => {
    expect((await errorOf(bed.feedProcess.process(1, input({ url: `${server.origin}/gone.csv` }))))?.code).toBe('FEED_NOT_FOUND');
    expect((await errorOf(bed.feedProcess.process(1, input({ url: `${server.origin}/products.csv`, contentType: 'json' }))))?.code).toBe('FEED_NOT_A_FEED');
    expect((await errorOf(bed.feedProcess.process(1, input({ url: 'http://169.254.169.254/latest/' }))))?.code).toBe('FEED_REFUSED');
    expect((await errorOf(bed.feedProcess.process(1, input({ url: 'http://[::ffff:127.0.0.1]:9/x.csv' }))))?.code).toBe('FEED_REFUSED');
  });
});
