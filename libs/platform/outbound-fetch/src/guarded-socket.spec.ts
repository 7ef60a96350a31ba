import { createServer, type Server } from 'node:net';
import { PassThrough } from 'node:stream';
import { isOutboundFetchError } from './errors';
import { createGuardedConnector, startOutboundBudget } from './guarded-socket';

const failureOf = async (run: () => Promise<unknown>) =>
  run().then(
    () => undefined,
    (error: unknown) => error,
  );

describe('guarded sockets and budgets for protocols other than HTTP', () => {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer((socket) => socket.on('error', () => undefined));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('connects to an allowlisted loopback endpoint and answers its checked address', async () => {
    const connector = createGuardedConnector({ allowlist: [`127.0.0.1:${port}`] });
    const url = new URL(`ftp://127.0.0.1:${port}/x`);
    const socket = await connector.connect(url, new AbortController().signal);
    socket.on('error', () => undefined);
    expect(socket.remoteAddress).toBe('127.0.0.1');
    socket.destroy();
    expect(await connector.resolve(url, new AbortController().signal)).toBe('127.0.0.1');
  });

  it.each(['ftp://127.0.0.1:21/x', 'sftp://10.0.0.1:22/x', 'ftp://169.254.169.254:21/x', 'sftp://[::ffff:127.0.0.1]:22/x', 'ftp://localhost:21/x'])(
    'refuses %s when it is not allowlisted, before connecting',
    async (text) => {
      const connector = createGuardedConnector();
      const url = new URL(text);
      for (const attempt of [() => connector.connect(url, new AbortController().signal), () => connector.resolve(url, new AbortController().signal)]) {
        const error = await failureOf(attempt);
        expect(isOutboundFetchError(error) && error.code).toBe('OUTBOUND_ADDRESS_NOT_ALLOWED');
      }
    },
  );

  /** Reads a body behind `budget` whose source sent `sent` (ending there when `ends`), and answers how the read failed. */
  const readFailure = (budget: ReturnType<typeof startOutboundBudget>, sent: Buffer | string, ends = false) => {
    const source = new PassThrough();
    const body = budget.limitBody(source);
    if (ends) source.end(sent);
    else source.write(sent);
    return failureOf(async () => {
      for await (const chunk of body) void chunk;
    });
  };

  it('caps the bytes of a body and stops it when the time is up', async () => {
    const url = new URL('sftp://feeds.example.com:22/f.csv');
    const tooLarge = await readFailure(startOutboundBudget(url, { maxBytes: 10, timeoutMs: 5_000 }), Buffer.alloc(20), true);
    expect(isOutboundFetchError(tooLarge) && tooLarge.code).toBe('OUTBOUND_RESPONSE_TOO_LARGE');

    const slow = startOutboundBudget(url, { maxBytes: 1_000, timeoutMs: 50 });
    const timeout = await readFailure(slow, 'a');
    expect(isOutboundFetchError(timeout) && timeout.code).toBe('OUTBOUND_TIMEOUT');
    expect(slow.signal.aborted).toBe(true);
  });

  it('stops a transfer whose host goes quiet for idleTimeoutMs, before its first byte or between chunks', async () => {
    const url = new URL('ftp://feeds.example.com:21/f.csv');
    const beforeBody = startOutboundBudget(url, { maxBytes: 1_000, timeoutMs: 5_000, idleTimeoutMs: 50 });
    await new Promise((resolve) => beforeBody.signal.addEventListener('abort', resolve, { once: true }));
    expect(beforeBody.signal.reason).toMatchObject({ code: 'OUTBOUND_STALLED', message: expect.stringMatching(/stalled: nothing arrived for 50 ms\.$/) });

    const stalledError = await readFailure(startOutboundBudget(url, { maxBytes: 1_000, timeoutMs: 5_000, idleTimeoutMs: 50 }), 'a');
    expect(isOutboundFetchError(stalledError) && stalledError.code).toBe('OUTBOUND_STALLED');
  });
});
