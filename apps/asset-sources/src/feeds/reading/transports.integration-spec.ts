import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { Client } from 'minio';
import { AppError } from '@platform/errors';
import { createGuardedConnector, createOutboundFetch } from '@platform/outbound-fetch';
import { startEmbeddedS3, type EmbeddedS3 } from '@platform/s3';
import type { FeedFormat, FeedLocation } from '../feed-reading';
import { createFeedReader } from './feed-reader';
import {
  sshKeyPair,
  startFeedFtpServer,
  startFeedHttpServer,
  startFeedSftpServer,
  startSilentTcpServer,
  type FeedFtpServer,
  type FeedSftpServer,
} from '@platform/testing';
import { CSV_FORMAT, readAll } from './feed-test-servers';
import { ftpTransport } from './ftp-transport';
import { objstoreTransport } from './objstore-transport';
import { sftpTransport } from './sftp-transport';

jest.setTimeout(60_000);

const FEED = 'sku,name\nA1,Crème\nA2,Hat\n';
const JSON_FEED = '[{"sku":"J1","price":{"amount":2}}]';
const XML_FEED = '<rss xmlns:g="http://base.google.com/ns/1.0"><channel><item><g:id>X1</g:id></item><item><g:id>X2</g:id></item></channel></rss>';

async function rejectionOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

function readerFor(allowlist: string[], maxBytes = 1024 * 1024, idleTimeoutMs?: number) {
  const connector = createGuardedConnector({ allowlist });
  const outbound = createOutboundFetch({ allowlist });
  return createFeedReader({
    transports: { ftp: ftpTransport(connector), sftp: sftpTransport(connector), objstore: objstoreTransport(outbound) },
    limits: { maxBytes, timeoutMs: 10_000, idleTimeoutMs },
  });
}

const at = (urlType: FeedLocation['urlType'], url: string, urlConfig: FeedLocation['urlConfig'] = {}): FeedLocation => ({
  accountId: 1,
  urlType,
  url,
  urlConfig,
});
const values = async (location: FeedLocation, format: FeedFormat = CSV_FORMAT, allowlist: string[] = []) =>
  (await readAll(await readerFor(allowlist).open(location, format))).rows.map((r) => r.values);

describe('ftp feeds (ftp-srv on loopback)', () => {
  let ftp: FeedFtpServer;
  let foreign: FeedFtpServer;
  beforeAll(async () => {
    const files = { 'feeds/products.csv': iconv.encode(FEED, 'latin1'), 'feeds/products.json': JSON_FEED, 'feeds/big.csv': 'sku\n' + 'B\n'.repeat(10_000) };
    ftp = await startFeedFtpServer({ files, user: 'feeder', password: 'ftp-pass' });
    foreign = await startFeedFtpServer({ files, user: 'feeder', password: 'ftp-pass', pasvHost: '127.0.0.2' });
  });
  afterAll(async () => {
    await ftp?.close();
    await foreign?.close();
  });
  const creds = { username: 'feeder', password: 'ftp-pass' };

  it('reads a CSV in iso_8859_1 and a JSON feed', async () => {
    expect(
      await values(at('ftp', `ftp://${ftp.hostPort}/feeds/products.csv`, creds), { ...CSV_FORMAT, characterEncoding: 'iso_8859_1' }, [ftp.hostPort]),
    ).toEqual([
      { sku: 'A1', name: 'Crème' },
      { sku: 'A2', name: 'Hat' },
    ]);
    const json: FeedFormat = { ...CSV_FORMAT, contentType: 'json' };
    expect(await values(at('ftp', `ftp://${ftp.hostPort}/feeds/products.json`, creds), json, [ftp.hostPort])).toEqual([{ sku: 'J1', 'price.amount': '2' }]);
  });

  it('answers wrong credentials FEED_AUTH_FAILED, a missing file FEED_NOT_FOUND, a file over the cap FEED_TOO_LARGE', async () => {
    const wrong = await rejectionOf(
      values(at('ftp', `ftp://${ftp.hostPort}/feeds/products.csv`, { ...creds, password: 'not-it' }), CSV_FORMAT, [ftp.hostPort]),
    );
    expect(wrong.code).toBe('FEED_AUTH_FAILED');
    expect(wrong.detail).not.toContain('not-it');
    expect((await rejectionOf(values(at('ftp', `ftp://${ftp.hostPort}/feeds/none.csv`, creds), CSV_FORMAT, [ftp.hostPort]))).code).toBe('FEED_NOT_FOUND');
    const small = readerFor([ftp.hostPort], 1_000);
    expect((await rejectionOf(small.open(at('ftp', `ftp://${ftp.hostPort}/feeds/big.csv`, creds), CSV_FORMAT).then(readAll))).code).toBe('FEED_TOO_LARGE');
  });

  it('refuses a PASV reply that names another host', async () => {
    const error = await rejectionOf(values(at('ftp', `ftp://${foreign.hostPort}/feeds/products.csv`, creds), CSV_FORMAT, [foreign.hostPort]));
    expect([error.code, error.detail]).toEqual(['FEED_REFUSED', expect.stringContaining('127.0.0.2')]);
  });

  it('refuses a loopback FTP host that is not admitted, and the metadata address', async () => {
    expect((await rejectionOf(values(at('ftp', `ftp://${ftp.hostPort}/feeds/products.csv`, creds)))).code).toBe('FEED_REFUSED');
    expect((await rejectionOf(values(at('ftp', 'ftp://169.254.169.254/feed.csv', creds)))).code).toBe('FEED_REFUSED');
  });

  it('answers an FTP port nothing listens on FEED_UNREACHABLE with the cause of a failed connection, in words', async () => {
    const closed = await startFeedHttpServer((_req, res) => res.end());
    const hostPort = closed.hostPort;
    await closed.close();
    const url = `ftp://${hostPort}/feed.csv`;
    const error = await rejectionOf(values(at('ftp', url, { username: 'feeder', password: 'ftp-pass' }), CSV_FORMAT, [hostPort]));
    expect(error.detail.startsWith(`The FTP connection to ${url} failed: `)).toBe(true);
    expect(error).toMatchObject({
      code: 'FEED_UNREACHABLE',
      detail: expect.stringContaining(`connect ECONNREFUSED ${hostPort}`),
      extensions: { cause: 'OUTBOUND_CONNECTION_FAILED' },
    });
  });
});

describe('sftp feeds (ssh2 server on loopback)', () => {
  let sftp: FeedSftpServer;
  const keys = sshKeyPair();
  beforeAll(async () => {
    sftp = await startFeedSftpServer({
      files: { 'data/feed.xml': XML_FEED, 'data/feed.csv': FEED },
      user: 'feeder',
      password: 'sftp-pass',
      publicKey: keys.public,
    });
  });
  afterAll(() => sftp?.close());

  it('reads with a password, on the portNumber given', async () => {
    const location = at('sftp', 'sftp://127.0.0.1/data/feed.xml', { username: 'feeder', password: 'sftp-pass', portNumber: sftp.port });
    expect(await values(location, { ...CSV_FORMAT, contentType: 'xml' }, [sftp.hostPort])).toEqual([{ id: 'X1' }, { id: 'X2' }]);
  });

  it('reads with a private key', async () => {
    const location = at('sftp', `sftp://${sftp.hostPort}/data/feed.csv`, { username: 'feeder', privateKey: keys.private });
    expect(await values(location, CSV_FORMAT, [sftp.hostPort])).toHaveLength(2);
  });

  it('answers wrong credentials FEED_AUTH_FAILED and a missing file FEED_NOT_FOUND', async () => {
    const wrong = await rejectionOf(
      values(at('sftp', `sftp://${sftp.hostPort}/data/feed.csv`, { username: 'feeder', password: 'nope-pass' }), CSV_FORMAT, [sftp.hostPort]),
    );
    expect(wrong.code).toBe('FEED_AUTH_FAILED');
    expect(wrong.detail).not.toContain('nope-pass');
    const missing = await rejectionOf(
      values(at('sftp', `sftp://${sftp.hostPort}/data/none.csv`, { username: 'feeder', password: 'sftp-pass' }), CSV_FORMAT, [sftp.hostPort]),
    );
    expect(missing.code).toBe('FEED_NOT_FOUND');
  });

  it("answers the server's host key fingerprint, reads when it is the one pinned, and sends no credential to a server with another", async () => {
    const location = at('sftp', `sftp://${sftp.hostPort}/data/feed.csv`, { username: 'feeder', password: 'sftp-pass' });
    const opened = await readerFor([sftp.hostPort]).open(location, CSV_FORMAT);
    expect(opened.hostKeyFingerprint).toBe(sftp.hostKeyFingerprint);
    await opened.close();
    const pinned = at('sftp', location.url, { ...location.urlConfig, hostKeyFingerprint: sftp.hostKeyFingerprint });
    expect(await values(pinned, CSV_FORMAT, [sftp.hostPort])).toHaveLength(2);

    const before = sftp.authentications();
    const otherKey = `SHA256:${'A'.repeat(43)}`;
    const refused = await rejectionOf(values(at('sftp', location.url, { ...location.urlConfig, hostKeyFingerprint: otherKey }), CSV_FORMAT, [sftp.hostPort]));
    expect(refused).toMatchObject({
      code: 'FEED_REFUSED',
      detail: expect.stringContaining(`presented host key ${sftp.hostKeyFingerprint}, not the pinned ${otherKey}`),
    });
    expect(refused.detail).not.toContain('sftp-pass');
    expect(sftp.authentications()).toBe(before);
  });

  it('answers a host that does not speak SSH FEED_UNREACHABLE with the cause the other transports give a failed connection', async () => {
    const web = await startFeedHttpServer((_req, res) => res.end('not ssh'));
    try {
      const url = `sftp://${web.hostPort}/data/feed.csv`;
      const error = await rejectionOf(values(at('sftp', url, { username: 'feeder', password: 'sftp-pass' }), CSV_FORMAT, [web.hostPort]));
      expect(error).toMatchObject({ code: 'FEED_UNREACHABLE', detail: expect.stringContaining(`The SFTP connection to ${url} failed: `) });
      expect(error.extensions).toEqual({ cause: 'OUTBOUND_CONNECTION_FAILED' });
      expect(error.detail).not.toContain('sftp-pass');
    } finally {
      await web.close();
    }
  });

  it('refuses a loopback SFTP host that is not admitted, and 10.0.0.1', async () => {
    expect((await rejectionOf(values(at('sftp', `sftp://${sftp.hostPort}/data/feed.csv`, { username: 'feeder', password: 'sftp-pass' })))).code).toBe(
      'FEED_REFUSED',
    );
    expect((await rejectionOf(values(at('sftp', 'sftp://10.0.0.1/data/feed.csv', { username: 'feeder', password: 'x' })))).code).toBe('FEED_REFUSED');
  });
});

describe('objstore feeds (the embedded S3 server on loopback)', () => {
  let s3: EmbeddedS3;
  let directory: string;
  let hostPort: string;
  const accessKey = 'feed-access';
  const secretKey = 'feed-secret-key';
  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'feed-s3-'));
    s3 = await startEmbeddedS3({ directory, port: 0, accessKey, secretKey });
    hostPort = new URL(s3.endpoint).host;
    const url = new URL(s3.endpoint);
    const client = new Client({ endPoint: url.hostname, port: Number(url.port), useSSL: false, accessKey, secretKey, region: 'us-east-1', pathStyle: true });
    await client.makeBucket('feeds', 'us-east-1');
    await client.putObject('feeds', 'exports/products.csv', Buffer.from(FEED));
    await client.putObject('feeds', 'exports/utf16.csv', Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(FEED, 'utf16le')]));
  });
  afterAll(async () => {
    await s3?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('reads s3://bucket/key at the endpoint given, and the path-style URL of the object', async () => {
    const creds = { accessKey, secretKey, endpoint: s3.endpoint };
    expect(await values(at('objstore', 's3://feeds/exports/products.csv', creds), CSV_FORMAT, [hostPort])).toHaveLength(2);
    const utf16 = await values(
      at('objstore', `${s3.endpoint}/feeds/exports/utf16.csv`, { accessKey, secretKey }),
      { ...CSV_FORMAT, characterEncoding: 'utf_16le' },
      [hostPort],
    );
    expect(utf16).toEqual([
      { sku: 'A1', name: 'Crème' },
      { sku: 'A2', name: 'Hat' },
    ]);
  });

  it('answers a wrong secret FEED_AUTH_FAILED and a missing object FEED_NOT_FOUND', async () => {
    const wrong = await rejectionOf(
      values(at('objstore', `${s3.endpoint}/feeds/exports/products.csv`, { accessKey, secretKey: 'wrong-secret' }), CSV_FORMAT, [hostPort]),
    );
    expect(wrong.code).toBe('FEED_AUTH_FAILED');
    expect(wrong.detail).not.toContain('wrong-secret');
    const missing = await rejectionOf(values(at('objstore', `${s3.endpoint}/feeds/exports/none.csv`, { accessKey, secretKey }), CSV_FORMAT, [hostPort]));
    expect(missing.code).toBe('FEED_NOT_FOUND');
  });

  it('refuses an endpoint on loopback that is not admitted, naming the object without the signed query (the access key, the signature)', async () => {
    const error = await rejectionOf(values(at('objstore', `${s3.endpoint}/feeds/exports/products.csv`, { accessKey, secretKey })));
    expect(error.code).toBe('FEED_REFUSED');
    expect(error.detail).toContain(`${s3.endpoint}/feeds/exports/products.csv:`);
    expect(error.detail).not.toContain(accessKey);
    expect(error.detail).not.toContain('X-Amz');
  });
});

describe('a host that never says a word (a TCP server on loopback)', () => {
  let silent: Awaited<ReturnType<typeof startSilentTcpServer>>;
  beforeAll(async () => {
    silent = await startSilentTcpServer();
  });
  afterAll(async () => {
    await silent?.close();
  });

  it.each([
    ['ftp', {}],
    ['sftp', { username: 'feeder', password: 'pw' }],
  ] as const)('fails a %s read once the idle timeout passes without a greeting, long before the read timeout', async (urlType, urlConfig) => {
    const url = `${urlType}://${silent.hostPort}/products.csv`;
    const startedAt = Date.now();
    const error = await rejectionOf(readerFor([silent.hostPort], 1024, 300).open(at(urlType, url, urlConfig), CSV_FORMAT));
    // The read timeout is 10 s: a transport that only noted the stall would still wait it out.
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(error).toMatchObject({
      code: 'FEED_UNREACHABLE',
      detail: `Fetching ${url} stalled: nothing arrived for 300 ms.`,
      extensions: { cause: 'OUTBOUND_STALLED' },
    });
  });
});
