import type { LookupAddress } from 'node:dns';
import { OutboundFetchError } from './errors';
import { HostResolver } from './host-resolution';
import { createOutboundFetch, DEFAULT_MAX_REDIRECTS, OutboundFetchOptions } from './outbound-fetch';
import { allowOnlyLoopbackConnections } from './testing/loopback-only-network';
import { selfSignedCertificateFor127, startTestServer, TestServer, unusedLoopbackPort } from './testing/test-server';

/** Awaits a promise that must reject with an OutboundFetchError and returns that error. */
async function outboundError(promise: Promise<unknown>): Promise<OutboundFetchError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof OutboundFetchError)) throw new Error(`expected an OutboundFetchError, got ${String(error)}`);
  return error;
}

const resolvesTo =
  (...addresses: string[]): HostResolver =>
  async () =>
    addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));

// The system resolver is never used here: names either are refused before any lookup or go
// through an injected resolver, so the tests do not depend on this machine's DNS.
const noDns: HostResolver = async (hostname) => {
  throw new Error(`unexpected DNS lookup of ${hostname}`);
};

describe(createOutboundFetch.name, () => {
  let removeSafetyNet: () => void;
  /** Answers "hello" to anything; every refusal test asserts it saw no request. */
  let target: TestServer;
  let servers: TestServer[] = [];

  const start = async (...args: Parameters<typeof startTestServer>) => {
    const server = await startTestServer(...args);
    servers.push(server);
    return server;
  };
  const sutWith = (options: OutboundFetchOptions = {}) => createOutboundFetch({ lookup: noDns, timeoutMs: 5_000, ...options });

  beforeAll(async () => {
    removeSafetyNet = allowOnlyLoopbackConnections();
    target = await start((_request, response) => response.end('hello'));
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    servers = [];
    removeSafetyNet();
  });

  beforeEach(() => {
    target.requests.length = 0;
  });

  describe('refuses addresses outbound fetches may not reach', () => {
    it.each([
      ['loopback 127.0.0.1', (port: number) => `http://127.0.0.1:${port}/`],
      ['loopback elsewhere in 127/8', (port: number) => `http://127.3.2.1:${port}/`],
      ['IPv6 loopback ::1', (port: number) => `http://[::1]:${port}/`],
      ['unspecified 0.0.0.0', (port: number) => `http://0.0.0.0:${port}/`],
      ['unspecified ::', (port: number) => `http://[::]:${port}/`],
      ['IPv4-mapped IPv6 ::ffff:127.0.0.1', (port: number) => `http://[::ffff:127.0.0.1]:${port}/`],
      ['IPv4-mapped IPv6 in hex ::ffff:7f00:1', (port: number) => `http://[::ffff:7f00:1]:${port}/`],
      ['IPv4-compatible ::127.0.0.1', (port: number) => `http://[::127.0.0.1]:${port}/`],
      ['NAT64 of loopback', (port: number) => `http://[64:ff9b::7f00:1]:${port}/`],
      ['decimal spelling 2130706433', (port: number) => `http://2130706433:${port}/`],
      ['hex spelling 0x7f000001', (port: number) => `http://0x7f000001:${port}/`],
      ['octal spelling 0177.0.0.1', (port: number) => `http://0177.0.0.1:${port}/`],
      ['short spelling 127.1', (port: number) => `http://127.1:${port}/`],
      ['the name localhost', (port: number) => `http://localhost:${port}/`],
      ['the name LOCALHOST. with a trailing dot', (port: number) => `http://LOCALHOST.:${port}/`],
      ['a name under .localhost', (port: number) => `http://feeds.localhost:${port}/`],
    ])('%s', async (_vector, urlFor) => {
      const error = await outboundError(sutWith().fetch(urlFor(target.port)));

      expect(error.code).toBe('OUTBOUND_ADDRESS_NOT_ALLOWED');
      expect(target.requests).toHaveLength(0);
    });

    it('judges numeric spellings by the address URL parsing turns them into', async () => {
      const error = await outboundError(sutWith().fetch(`http://0x7f000001:${target.port}/feed`));

      expect(error.url).toBe(`http://127.0.0.1:${target.port}/feed`);
      expect(error.message).toContain('loopback');
    });

    it.each([
      ['private 10/8', 'http://10.0.0.1/'],
      ['private 172.16/12 (low end)', 'http://172.16.0.1/'],
      ['private 172.16/12 (high end)', 'http://172.31.255.254/'],
      ['private 192.168/16', 'http://192.168.1.1/'],
      ['private IPv6 fc00::/7', 'http://[fd00::1]/'],
      ['link-local 169.254/16', 'http://169.254.10.20/'],
      ['cloud metadata 169.254.169.254', 'http://169.254.169.254/latest/meta-data/'],
      ['IPv6 link-local fe80::/10', 'http://[fe80::1]/'],
      ['carrier-grade NAT 100.64/10', 'http://100.64.0.1/'],
      ['multicast', 'http://224.0.0.251/'],
      ['broadcast', 'http://255.255.255.255/'],
      ['reserved 240/4', 'http://240.0.0.1/'],
      ['IPv4-mapped metadata address', 'http://[::ffff:169.254.169.254]/'],
      ['NAT64 of a private address', 'http://[64:ff9b::10.0.0.1]/'],
      ['6to4 of a private address', 'http://[2002:c0a8:101::1]/'],
      ['decimal spelling of the metadata address', 'http://2852039166/'],
    ])('%s', async (_vector, url) => {
      const error = await outboundError(sutWith().fetch(url));

      expect(error.code).toBe('OUTBOUND_ADDRESS_NOT_ALLOWED');
    });

    it('refuses a host name that resolves to a private address', async () => {
      const sut = sutWith({ lookup: resolvesTo('10.20.30.40') });

      const error = await outboundError(sut.fetch('https://feeds.customer.example/products.xml'));

      expect(error.code).toBe('OUTBOUND_ADDRESS_NOT_ALLOWED');
      expect(error.message).toBe(
        'Refused to fetch https://feeds.customer.example/products.xml: the host "feeds.customer.example" resolves to an address ' +
          'that is not allowed: 10.20.30.40 is in the private range. Outbound fetches may only reach public addresses.',
      );
    });

    it('refuses a host name when any one of its addresses is disallowed', async () => {
      const sut = sutWith({ lookup: resolvesTo('93.184.216.34', '2606:2800:220:1::1', '192.168.0.10') });

      const error = await outboundError(sut.fetch('http://feeds.customer.example/'));

      expect(error.code).toBe('OUTBOUND_ADDRESS_NOT_ALLOWED');
      expect(error.message).toContain('192.168.0.10');
    });

    it('refuses a host name that resolves to an IPv4-mapped loopback address', async () => {
      const sut = sutWith({ lookup: resolvesTo('::ffff:127.0.0.1') });

      const error = await outboundError(sut.fetch(`http://rebind.customer.example:${target.port}/`));

      expect(error.code).toBe('OUTBOUND_ADDRESS_NOT_ALLOWED');
      expect(target.requests).toHaveLength(0);
    });

    it('does not let an allowlist entry for another port through', async () => {
      const error = await outboundError(sutWith({ allowlist: [`127.0.0.1:${target.port + 1}`] }).fetch(`${target.origin}/`));

      expect(error.code).toBe('OUTBOUND_ADDRESS_NOT_ALLOWED');
      expect(target.requests).toHaveLength(0);
    });
  });

  describe('refuses schemes other than http and https', () => {
    it.each([
      'file:///etc/passwd',
      'ftp://ftp.example.com/feed.csv',
      'gopher://example.com:70/1',
      'data:text/plain,hello',
      'javascript:alert(1)',
      'ws://example.com/socket',
      'jar:http://example.com/a.jar!/',
    ])('%s', async (url) => {
      const error = await outboundError(sutWith().fetch(url));

      expect(error.code).toBe('OUTBOUND_SCHEME_NOT_ALLOWED');
    });
  });

  it('refuses what is not an absolute URL', async () => {
    const error = await outboundError(sutWith().fetch('/relative/feed.xml'));

    expect(error.code).toBe('OUTBOUND_INVALID_URL');
  });

  describe('credentials in the URL', () => {
    it('are sent as basic auth and kept out of the returned URL', async () => {
      const sut = sutWith({ allowlist: [`127.0.0.1:${target.port}`] });

      const response = await sut.fetch(`http://feed-user:s3cr%40t@127.0.0.1:${target.port}/feed`);

      expect(target.requests[0].headers.authorization).toBe(`Basic ${Buffer.from('feed-user:s3cr@t').toString('base64')}`);
      expect(response.url).toBe(`${target.origin}/feed`);
    });

    it('never appear in an error', async () => {
      const error = await outboundError(sutWith().fetch('http://feed-user:hunter2@169.254.169.254/latest'));

      expect(error.code).toBe('OUTBOUND_ADDRESS_NOT_ALLOWED');
      expect(`${error.message} ${error.url} ${error.stack}`).not.toMatch(/hunter2|feed-user/);
      expect(error.url).toBe('http://169.254.169.254/latest');
    });
  });

  describe('allowlisted endpoints', () => {
    it('fetch from an allowlisted loopback server', async () => {
      const server = await start((_request, response) => {
        response.setHeader('content-type', 'application/xml');
        response.end('<feed/>');
      });
      const sut = sutWith({ allowlist: [`127.0.0.1:${server.port}`] });

      const response = await sut.fetch(`${server.origin}/feed.xml?page=2`);

      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/xml');
      expect(response.body.toString()).toBe('<feed/>');
      // The final URL, for messages: its query may carry a token.
      expect(response.url).toBe(`${server.origin}/feed.xml`);
      expect(server.requests.map((request) => request.path)).toEqual(['/feed.xml?page=2']);
    });

    it('match the host name as written in the URL, whatever it resolves to', async () => {
      const sut = sutWith({ allowlist: [`minio.on-prem.test:${target.port}`], lookup: resolvesTo('127.0.0.1') });

      const response = await sut.fetch(`http://minio.on-prem.test:${target.port}/bucket/key`);

      expect(response.body.toString()).toBe('hello');
      expect(target.requests[0].headers.host).toBe(`minio.on-prem.test:${target.port}`);
    });

    it('return non-2xx statuses instead of throwing', async () => {
      const server = await start((_request, response) => {
        response.statusCode = 404;
        response.end('gone');
      });

      const response = await sutWith({ allowlist: [`127.0.0.1:${server.port}`] }).fetch(`${server.origin}/missing`);

      expect(response.status).toBe(404);
      expect(response.body.toString()).toBe('gone');
    });

    it('send the method, headers and body', async () => {
      const sut = sutWith({ allowlist: [`127.0.0.1:${target.port}`] });

      await sut.fetch(`${target.origin}/ingest`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":1}' });

      expect(target.requests[0]).toMatchObject({ method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json', 'content-length': '7' } });
    });

    it('report a connection dropped mid-body as OUTBOUND_CONNECTION_FAILED', async () => {
      const server = await start((_request, response) => {
        response.writeHead(200, { 'content-length': '100' });
        response.write('only ten b', () => response.socket?.destroy());
      });

      const error = await outboundError(sutWith({ allowlist: [`127.0.0.1:${server.port}`] }).fetch(`${server.origin}/`));

      expect(error.code).toBe('OUTBOUND_CONNECTION_FAILED');
    });

    it('report a refused connection as OUTBOUND_CONNECTION_FAILED', async () => {
      const port = await unusedLoopbackPort();

      const error = await outboundError(sutWith({ allowlist: [`127.0.0.1:${port}`] }).fetch(`http://127.0.0.1:${port}/`));

      expect(error.code).toBe('OUTBOUND_CONNECTION_FAILED');
      expect(error.message).toContain('ECONNREFUSED');
    });
  });

  describe('redirects', () => {
    let first: TestServer;
    let second: TestServer;
    let sut: ReturnType<typeof sutWith>;

    beforeAll(async () => {
      second = await start((request, response) => {
        if (request.url === '/final') {
          response.end('arrived');
        } else if (request.url === '/to-unlisted-loopback') {
          response.writeHead(302, { location: `${target.origin}/secret` }).end();
        } else {
          response.end(`second saw ${request.method}`);
        }
      });
      first = await start((request, response) => {
        const redirects: Record<string, [number, string]> = {
          '/start': [302, '/hop'],
          '/hop': [301, `${second.origin}/final`],
          '/loop': [302, '/loop'],
          '/to-unlisted-loopback': [302, `${target.origin}/secret`],
          '/to-unlisted-via-second': [307, `${second.origin}/to-unlisted-loopback`],
          '/to-metadata': [302, 'http://169.254.169.254/latest/meta-data/iam/'],
          '/to-file': [302, 'file:///etc/passwd'],
          '/see-other': [303, `${second.origin}/after-303`],
          '/temporary': [307, `${second.origin}/after-307`],
          '/relative-up': [302, '../final-from-first'],
        };
        const redirect = redirects[request.url ?? ''];
        if (redirect) {
          response.writeHead(redirect[0], { location: redirect[1] }).end('redirect body is ignored');
        } else {
          response.end(`first saw ${request.url}`);
        }
      });
      sut = sutWith({ allowlist: [`127.0.0.1:${first.port}`, `127.0.0.1:${second.port}`] });
    });

    beforeEach(() => {
      first.requests.length = 0;
      second.requests.length = 0;
    });

    it('are followed between allowlisted servers, relative Location resolved against the current URL', async () => {
      const response = await sut.fetch(`${first.origin}/start`);

      expect(response.body.toString()).toBe('arrived');
      expect(response.url).toBe(`${second.origin}/final`);
      expect(first.requests.map((request) => request.path)).toEqual(['/start', '/hop']);
    });

    it('resolve a dot-segment Location against the URL that answered', async () => {
      const response = await sut.fetch(`${first.origin}/relative-up`);

      expect(response.url).toBe(`${first.origin}/final-from-first`);
      expect(response.body.toString()).toBe('first saw /final-from-first');
    });

    it('turn a POST into a body-less GET after 303', async () => {
      const response = await sut.fetch(`${first.origin}/see-other`, { method: 'POST', body: 'payload', headers: { 'content-type': 'text/plain' } });

      expect(response.body.toString()).toBe('second saw GET');
      expect(second.requests[0]).toMatchObject({ method: 'GET', body: '' });
      expect(second.requests[0].headers['content-type']).toBeUndefined();
    });

    it('repeat the POST with its body after 307', async () => {
      await sut.fetch(`${first.origin}/temporary`, { method: 'POST', body: 'payload' });

      expect(second.requests[0]).toMatchObject({ method: 'POST', body: 'payload' });
    });

    it('do not carry Authorization to another origin', async () => {
      await sut.fetch(`${first.origin}/temporary`, { headers: { Authorization: 'Bearer customer-token' } });

      expect(first.requests[0].headers.authorization).toBe('Bearer customer-token');
      expect(second.requests[0].headers.authorization).toBeUndefined();
    });

    it('are refused when they lead from an allowlisted server to a loopback port that is not', async () => {
      const error = await outboundError(sut.fetch(`${first.origin}/to-unlisted-loopback`));

      expect(error.code).toBe('OUTBOUND_ADDRESS_NOT_ALLOWED');
      expect(error.url).toBe(`${target.origin}/secret`);
      expect(target.requests).toHaveLength(0);
    });

    it('are re-checked on every hop, not only the first', async () => {
      const error = await outboundError(sut.fetch(`${first.origin}/to-unlisted-via-second`));

      expect(error.code).toBe('OUTBOUND_ADDRESS_NOT_ALLOWED');
      expect(second.requests.map((request) => request.path)).toEqual(['/to-unlisted-loopback']);
      expect(target.requests).toHaveLength(0);
    });

    it('are refused towards the metadata address', async () => {
      const error = await outboundError(sut.fetch(`${first.origin}/to-metadata`));

      expect(error.code).toBe('OUTBOUND_ADDRESS_NOT_ALLOWED');
    });

    it('are refused towards a non-http scheme', async () => {
      const error = await outboundError(sut.fetch(`${first.origin}/to-file`));

      expect(error.code).toBe('OUTBOUND_SCHEME_NOT_ALLOWED');
    });

    it(`stop a redirect loop after maxRedirects (default ${DEFAULT_MAX_REDIRECTS})`, async () => {
      const error = await outboundError(sut.fetch(`${first.origin}/loop`));

      expect(error.code).toBe('OUTBOUND_TOO_MANY_REDIRECTS');
      expect(first.requests).toHaveLength(DEFAULT_MAX_REDIRECTS + 1);
    });

    it('honour a per-request maxRedirects', async () => {
      const error = await outboundError(sut.fetch(`${first.origin}/start`, { maxRedirects: 1 }));

      expect(error.code).toBe('OUTBOUND_TOO_MANY_REDIRECTS');
      expect(second.requests).toHaveLength(0);
    });
  });

  describe('byte cap', () => {
    let server: TestServer;
    let sut: ReturnType<typeof sutWith>;

    beforeAll(async () => {
      server = await start((request, response) => {
        if (request.url === '/announced') {
          response.writeHead(200, { 'content-length': '2048' }).end(Buffer.alloc(2048, 'a'));
        } else if (request.url === '/chunked') {
          // No Content-Length: the cap must be enforced on what actually arrives.
          response.write(Buffer.alloc(600, 'b'));
          setTimeout(() => response.end(Buffer.alloc(600, 'b')), 20);
        } else {
          response.end(Buffer.alloc(1024, 'c'));
        }
      });
      sut = sutWith({ allowlist: [`127.0.0.1:${server.port}`], maxBytes: 1024 });
    });

    it('refuses a response whose Content-Length announces too much', async () => {
      const error = await outboundError(sut.fetch(`${server.origin}/announced`));

      expect(error.code).toBe('OUTBOUND_RESPONSE_TOO_LARGE');
      expect(error.message).toContain('announces 2048 bytes');
    });

    it('aborts a chunked response once it passes the limit', async () => {
      const error = await outboundError(sut.fetch(`${server.origin}/chunked`));

      expect(error.code).toBe('OUTBOUND_RESPONSE_TOO_LARGE');
      expect(error.message).toContain('exceeded the limit of 1024 bytes');
    });

    it('accepts a body of exactly maxBytes', async () => {
      const response = await sut.fetch(`${server.origin}/exact`);

      expect(response.body).toHaveLength(1024);
    });

    it('honours a per-request maxBytes', async () => {
      const error = await outboundError(sut.fetch(`${server.origin}/exact`, { maxBytes: 1023 }));

      expect(error.code).toBe('OUTBOUND_RESPONSE_TOO_LARGE');
    });

    it('does not apply Content-Length to a HEAD, which has no body', async () => {
      const response = await sut.fetch(`${server.origin}/announced`, { method: 'HEAD' });

      expect(response.status).toBe(200);
      expect(response.body).toHaveLength(0);
    });

    it('makes the stream of fetchStream error past the limit', async () => {
      const { body } = await sut.fetchStream(`${server.origin}/chunked`);
      let received = 0;

      const error = await outboundError(
        (async () => {
          for await (const chunk of body) received += (chunk as Buffer).length;
        })(),
      );

      expect(error.code).toBe('OUTBOUND_RESPONSE_TOO_LARGE');
      expect(received).toBeLessThanOrEqual(1024);
    });

    it('streams a body within the limit through fetchStream', async () => {
      const { status, body } = await sut.fetchStream(`${server.origin}/exact`);
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(chunk as Buffer);

      expect(status).toBe(200);
      expect(Buffer.concat(chunks).equals(Buffer.alloc(1024, 'c'))).toBe(true);
    });
  });

  describe('deadline', () => {
    let server: TestServer;
    let sut: ReturnType<typeof sutWith>;

    beforeAll(async () => {
      server = await start((request, response) => {
        if (request.url === '/never') return; // accepts, reads the request, never answers
        if (request.url === '/stalls-mid-body') {
          response.writeHead(200, { 'content-length': '100' });
          response.write('first half');
          return;
        }
        if (request.url === '/slow-redirect') {
          setTimeout(() => response.writeHead(302, { location: '/slow-final' }).end(), 150);
          return;
        }
        setTimeout(() => response.end('slow but done'), 150);
      });
      sut = sutWith({ allowlist: [`127.0.0.1:${server.port}`], timeoutMs: 250 });
    });

    it('times out a server that never answers', async () => {
      const startedAt = Date.now();

      const error = await outboundError(sut.fetch(`${server.origin}/never`));

      expect(error.code).toBe('OUTBOUND_TIMEOUT');
      expect(error.message).toContain('250 ms');
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(240);
    });

    it('times out a body that stops arriving', async () => {
      const error = await outboundError(sut.fetch(`${server.origin}/stalls-mid-body`));

      expect(error.code).toBe('OUTBOUND_TIMEOUT');
    });

    it('destroys an abandoned stream body at the deadline without crashing the process', async () => {
      const { body } = await sut.fetchStream(`${server.origin}/stalls-mid-body`);

      await new Promise((resolve) => body.once('close', resolve));

      expect(body.errored).toMatchObject({ code: 'OUTBOUND_TIMEOUT' });
    });

    it('counts the whole redirect chain against one deadline', async () => {
      // Each hop takes 150 ms, well inside 250 ms on its own; the two together do not fit.
      const error = await outboundError(sut.fetch(`${server.origin}/slow-redirect`));

      expect(error.code).toBe('OUTBOUND_TIMEOUT');
      expect(error.url).toBe(`${server.origin}/slow-final`);
    });

    it('lets a per-request timeout extend the default', async () => {
      const response = await sut.fetch(`${server.origin}/slow-redirect`, { timeoutMs: 2_000 });

      expect(response.body.toString()).toBe('slow but done');
    });
  });

  describe('idle timeout (a host gone quiet, well inside the total deadline)', () => {
    let server: TestServer;
    let sut: ReturnType<typeof sutWith>;
    const idle = { idleTimeoutMs: 200 };

    beforeAll(async () => {
      server = await start((request, response) => {
        if (request.url === '/never') return;
        if (request.url === '/stalls-mid-body') {
          response.writeHead(200, { 'content-length': '100' });
          response.write('first half');
          return;
        }
        if (request.url === '/trickle') {
          // 12 chunks 60 ms apart: 720 ms in all, never 200 ms without a byte.
          let sent = 0;
          const timer = setInterval(() => {
            response.write(`chunk ${sent}\n`);
            if (++sent === 12) {
              clearInterval(timer);
              response.end();
            }
          }, 60);
          return;
        }
        response.end(Buffer.alloc(4 * 1024 * 1024, 'x'));
      });
      sut = sutWith({ allowlist: [`127.0.0.1:${server.port}`], timeoutMs: 10_000, maxBytes: 8 * 1024 * 1024 });
    });

    it('fails a host that sends no answer as OUTBOUND_STALLED, naming the quiet it waited out', async () => {
      const error = await outboundError(sut.fetch(`${server.origin}/never`, idle));

      expect(error.code).toBe('OUTBOUND_STALLED');
      expect(error.message).toBe(`Fetching ${server.origin}/never stalled: nothing arrived for 200 ms.`);
    });

    it('fails a body that stops arriving midway while it is read', async () => {
      const error = await outboundError(sut.fetch(`${server.origin}/stalls-mid-body`, idle));

      expect(error.code).toBe('OUTBOUND_STALLED');
    });

    it('lets a body that keeps arriving take longer in all than the idle timeout', async () => {
      const response = await sut.fetch(`${server.origin}/trickle`, idle);

      expect(response.body.toString().split('\n')).toHaveLength(13);
    });

    it("does not count the reader's own pauses: bytes waiting in the buffer are not a quiet host", async () => {
      const { body } = await sut.fetchStream(`${server.origin}/big`, idle);
      await new Promise((resolve) => setTimeout(resolve, 600));

      let bytes = 0;
      for await (const chunk of body) bytes += (chunk as Buffer).length;

      expect(bytes).toBe(4 * 1024 * 1024);
    });

    it('refuses an idle timeout that is not a positive number', async () => {
      await expect(sut.fetch(`${server.origin}/big`, { idleTimeoutMs: 0 })).rejects.toThrow('idleTimeoutMs must be a number > 0');
    });
  });

  describe('DNS', () => {
    it('reports a failed lookup as OUTBOUND_DNS_FAILED', async () => {
      const failingLookup: HostResolver = async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND feeds.nowhere.example'), { code: 'ENOTFOUND' });
      };

      const error = await outboundError(sutWith({ lookup: failingLookup }).fetch('https://feeds.nowhere.example/feed.xml'));

      expect(error.code).toBe('OUTBOUND_DNS_FAILED');
      expect(error.message).toContain('ENOTFOUND');
    });

    it('times out a lookup that never answers', async () => {
      const hangingLookup: HostResolver = () => new Promise(() => undefined);

      const error = await outboundError(sutWith({ lookup: hangingLookup, timeoutMs: 100 }).fetch('https://slow-dns.example/'));

      expect(error.code).toBe('OUTBOUND_TIMEOUT');
    });
  });

  describe('https', () => {
    let server: TestServer;

    beforeAll(async () => {
      const credentials = selfSignedCertificateFor127();
      server = await start((_request, response) => response.end('over tls'), credentials);
      (server as TestServer & { cert: string }).cert = credentials.cert;
    });

    it('fetches from an allowlisted TLS server whose CA is trusted', async () => {
      const { cert } = server as TestServer & { cert: string };
      const sut = sutWith({ allowlist: [`127.0.0.1:${server.port}`], extraCaCertificates: [cert] });

      const response = await sut.fetch(`${server.origin}/feed`);

      expect(response.body.toString()).toBe('over tls');
    });

    it('explains an https URL at a plain-http server in a sentence, not in OpenSSL text', async () => {
      const url = `https://127.0.0.1:${target.port}/feed`;

      const error = await outboundError(sutWith({ allowlist: [`127.0.0.1:${target.port}`] }).fetch(url));

      expect(error.code).toBe('OUTBOUND_CONNECTION_FAILED');
      expect(error.message).toBe(
        `The connection to ${url} failed: the TLS handshake failed because the server did not answer in TLS (perhaps it serves plain http).`,
      );
      expect(target.requests).toHaveLength(0);
    });

    it('refuses a certificate it cannot verify', async () => {
      server.requests.length = 0;
      const sut = sutWith({ allowlist: [`127.0.0.1:${server.port}`] });

      const error = await outboundError(sut.fetch(`${server.origin}/feed`));

      expect(error.code).toBe('OUTBOUND_CONNECTION_FAILED');
      expect(server.requests).toHaveLength(0);
    });
  });

  it('rejects invalid limits when created', () => {
    expect(() => createOutboundFetch({ maxRedirects: -1 })).toThrow('maxRedirects');
    expect(() => createOutboundFetch({ timeoutMs: 0 })).toThrow('timeoutMs');
  });
});
