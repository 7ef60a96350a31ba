import { Writable } from 'node:stream';
import { createAccessLogger } from './access-logger';

describe(createAccessLogger.name, () => {
  it('writes one structured line per request with exactly the access-log fields', () => {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(chunk.toString()));
        done();
      },
    });
    const access = createAccessLogger({ service: 'gateway', destination });
    access.log({ requestId: 'r-1', method: 'GET', route: '/v2/x', status: 200, durationMs: 1.5, keyId: 'k1' });
    expect(lines).toEqual([
      {
        level: 'info',
        time: expect.any(String),
        service: 'gateway',
        requestId: 'r-1',
        method: 'GET',
        route: '/v2/x',
        status: 200,
        durationMs: 1.5,
        keyId: 'k1',
        msg: 'request',
      },
    ]);
  });

  it('writes nothing below its level', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    createAccessLogger({ service: 'gateway', level: 'warn', destination }).log({ requestId: 'r', method: 'GET', route: '/', status: 200, durationMs: 1 });
    expect(lines).toEqual([]);
  });
});
