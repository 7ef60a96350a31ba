import { ConfigError, loadConfig } from './config.loader';
import { booleanFlag, msList, port, secretKey, url, z } from './config.fields';

describe(loadConfig.name, () => {
  const schema = z.object({
    PORT: port(8080),
    NATS_URL: url('nats://127.0.0.1:4222', ['nats']),
    DEBUG: booleanFlag(false),
    KEY: secretKey.optional(),
  });

  it('applies defaults when variables are absent', () => {
    expect(loadConfig(schema, {})).toEqual({ PORT: 8080, NATS_URL: 'nats://127.0.0.1:4222', DEBUG: false });
  });

  it('coerces strings into numbers, booleans and key bytes', () => {
    const cfg = loadConfig(schema, { PORT: '9', DEBUG: 'true', KEY: 'ab'.repeat(32) });
    expect(cfg.PORT).toBe(9);
    expect(cfg.DEBUG).toBe(true);
    expect(cfg.KEY).toEqual(Buffer.alloc(32, 0xab));
  });

  it('reports every invalid variable in one error', () => {
    let error: unknown;
    try {
      loadConfig(schema, { PORT: '70000', NATS_URL: 'http://x', KEY: 'short' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/^PORT:/m);
    expect(problems).toMatch(/^NATS_URL: must be a URL with protocol nats/m);
    expect(problems).toMatch(/^KEY: must be 32 bytes/m);
  });

  it('reads a list of durations, empty for none, and refuses a list of other things or too long', () => {
    const retries = z.object({ RETRY_DELAYS_MS: msList('60000,300000', { min: 100, max: 3_600_000, maxEntries: 3 }) });
    expect(loadConfig(retries, {}).RETRY_DELAYS_MS).toEqual([60_000, 300_000]);
    expect(loadConfig(retries, { RETRY_DELAYS_MS: ' 200, 400 ' }).RETRY_DELAYS_MS).toEqual([200, 400]);
    expect(loadConfig(retries, { RETRY_DELAYS_MS: '' }).RETRY_DELAYS_MS).toEqual([]);
    for (const bad of ['60s', '50', '1,2.5', '200,,200', '100,100,100,100'])
      expect(() => loadConfig(retries, { RETRY_DELAYS_MS: bad })).toThrow(/RETRY_DELAYS_MS: must/);
  });
});
