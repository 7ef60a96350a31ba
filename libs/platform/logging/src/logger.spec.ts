import { Writable } from 'node:stream';
import { createLogger } from './logger';
import { withRequestId } from './request-context';

function captureLogger() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { logger: createLogger({ service: 'test', destination }), lines };
}

describe(createLogger.name, () => {
  it('writes structured JSON with the service name and a textual level', () => {
    const { logger, lines } = captureLogger();
    logger.info({ orgId: 'o1' }, 'hello');
    expect(lines[0]).toMatchObject({ service: 'test', level: 'info', orgId: 'o1', msg: 'hello' });
  });

  it('redacts secrets at the top level, nested, and in headers', () => {
    const { logger, lines } = captureLogger();
    logger.info({
      password: 'p1',
      body: { secreteKey: 's1', urlConfig: { privateKey: 'k1' } },
      req: { headers: { authorization: 'Bearer abc', 'x-api-key': 'xyz' } },
      service: { accessKey: 'a1' },
    });
    const text = JSON.stringify(lines[0]);
    for (const secret of ['p1', 's1', 'k1', 'Bearer abc', 'xyz', 'a1']) expect(text).not.toContain(secret);
    expect(text).toContain('[REDACTED]');
  });

  it('redacts secrets at any depth, in arrays and in any case, leaving the rest as it was', () => {
    const { logger, lines } = captureLogger();
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    logger.child({ component: 'feeds' }).warn(
      {
        source: { urlConfig: { SecretKey: 'c1' } },
        request: { feed: { urlConfig: { password: 'd1', username: 'walk' }, feeds: [{ deep: { PASSWORD: 'd2' } }] } },
        cyclic,
        err: new Error('boom'),
      },
      'failed',
    );
    const line = lines[0];
    for (const secret of ['c1', 'd1', 'd2']) expect(JSON.stringify(line)).not.toContain(secret);
    expect(line).toMatchObject({
      request: { feed: { urlConfig: { password: '[REDACTED]', username: 'walk' }, feeds: [{ deep: { PASSWORD: '[REDACTED]' } }] } },
      source: { urlConfig: { SecretKey: '[REDACTED]' } },
      cyclic: { name: 'loop', self: '[Circular]' },
      err: { type: 'Error', message: 'boom' },
    });
  });

  it('names the current request on every line written while it is served, children and awaits included', async () => {
    const { logger, lines } = captureLogger();
    await withRequestId('req-12345678', async () => {
      logger.info('first');
      await new Promise((resolve) => setTimeout(resolve, 1));
      logger.child({ component: 'x' }).warn('after an await');
    });
    logger.info('outside');
    expect(lines.map((line) => [line.msg, line.requestId])).toEqual([
      ['first', 'req-12345678'],
      ['after an await', 'req-12345678'],
      ['outside', undefined],
    ]);
  });
});
