import { DEV_ADMIN_TOKEN, loadGatewayConfig, resolveAdminToken } from './gateway.config';

describe(resolveAdminToken.name, () => {
  it('refuses to start in production without ADMIN_TOKEN', () => {
    expect(() => resolveAdminToken(loadGatewayConfig({ NODE_ENV: 'production' }), () => undefined)).toThrow(/ADMIN_TOKEN is required in production/);
  });

  it('falls back to the development token with a warning outside production', () => {
    const warnings: string[] = [];
    expect(resolveAdminToken(loadGatewayConfig({}), (m) => warnings.push(m))).toBe(DEV_ADMIN_TOKEN);
    expect(warnings).toEqual([expect.stringContaining('ADMIN_TOKEN is not set')]);
  });

  it('uses the configured token and refuses a short one', () => {
    expect(resolveAdminToken(loadGatewayConfig({ ADMIN_TOKEN: 'x'.repeat(20), NODE_ENV: 'production' }), () => undefined)).toBe('x'.repeat(20));
    expect(() => loadGatewayConfig({ ADMIN_TOKEN: 'short' })).toThrow(/ADMIN_TOKEN: must be at least 16 characters/);
  });
});

describe(loadGatewayConfig.name, () => {
  it('defaults to the documented values', () => {
    const config = loadGatewayConfig({});
    expect(config).toMatchObject({
      PORT: 8080,
      HOST: '127.0.0.1',
      CHANNELS_PLANS_ADDR: '127.0.0.1:50051',
      GRPC_DEADLINE_MS: 5000,
      RATE_LIMIT_PER_MINUTE: 6000,
    });
    // Unset, so pagination links follow the host the client used.
    expect(config.PUBLIC_BASE_URL).toBeUndefined();
  });
});

describe('principal cache settings', () => {
  it('defaults to a 30 s TTL and reads NATS like the other processes', () => {
    expect(loadGatewayConfig({})).toMatchObject({
      PRINCIPAL_CACHE_TTL_MS: 30_000,
      PRINCIPAL_CACHE_MAX_ENTRIES: 10_000,
      NATS_URL: 'nats://127.0.0.1:4222',
      NATS_PREFIX: '',
    });
  });

  it('accepts 0 to turn the cache off and refuses a negative TTL or an empty bound', () => {
    expect(loadGatewayConfig({ PRINCIPAL_CACHE_TTL_MS: '0' }).PRINCIPAL_CACHE_TTL_MS).toBe(0);
    expect(() => loadGatewayConfig({ PRINCIPAL_CACHE_TTL_MS: '-1' })).toThrow(/PRINCIPAL_CACHE_TTL_MS/);
    expect(() => loadGatewayConfig({ PRINCIPAL_CACHE_MAX_ENTRIES: '0' })).toThrow(/PRINCIPAL_CACHE_MAX_ENTRIES/);
  });
});
