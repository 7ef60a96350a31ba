import { Writable } from 'node:stream';
import { createLogger } from '@platform/logging';
import { closeNats, connectNats, pingNats, redactUrl } from './nats.connection';
import { NATS_TEST_URL, testLogger } from './nats.test-support';

describe(connectNats.name, () => {
  it('connects, answers pings while open, and refuses them once closed', async () => {
    const nc = await connectNats({ url: NATS_TEST_URL, name: 'connection-test', logger: testLogger });

    expect(await pingNats(nc)).toBeGreaterThanOrEqual(0);
    await closeNats(nc);

    expect(nc.isClosed()).toBe(true);
    await expect(pingNats(nc)).rejects.toThrow(/closed/);
    await closeNats(nc);
  });

  it('fails fast when nothing listens at the URL', async () => {
    const started = Date.now();
    await expect(connectNats({ url: 'nats://127.0.0.1:1', name: 'unreachable', logger: testLogger, connectTimeoutMs: 1_000 })).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('never logs the credentials of NATS_URL', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ service: 'test', destination });
    const url = NATS_TEST_URL.replace('nats://', 'nats://someone:s3cr3t-pass@');

    // The server has no auth configured, so it accepts (and ignores) the credentials.
    const nc = await connectNats({ url, name: 'credentials-test', logger });
    await closeNats(nc);

    expect(lines.join('')).toContain(redactUrl(NATS_TEST_URL));
    expect(lines.join('')).not.toContain('s3cr3t-pass');
    expect(redactUrl(url)).toBe(redactUrl(NATS_TEST_URL));
  });
});
