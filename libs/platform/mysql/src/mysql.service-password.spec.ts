import { servicePassword } from './mysql.service-password';

describe(servicePassword.name, () => {
  it('returns the explicit password in production', () => {
    expect(servicePassword({ explicit: 'a-long-rotated-secret', nodeEnv: 'production', schema: 'media' })).toBe('a-long-rotated-secret');
  });

  it('refuses to start in production without an explicit password', () => {
    expect(() => servicePassword({ nodeEnv: 'production', schema: 'media' })).toThrow(/MYSQL_SERVICE_PASSWORD is required in production/);
    expect(() => servicePassword({ explicit: '', nodeEnv: 'production', schema: 'media' })).toThrow(/MYSQL_SERVICE_PASSWORD/);
  });

  it('derives the same development password for the same schema every time', () => {
    const first = servicePassword({ nodeEnv: 'development', schema: 'media' });
    expect(servicePassword({ nodeEnv: 'test', schema: 'media' })).toBe(first);
    // The config schema requires at least 12 characters for MYSQL_SERVICE_PASSWORD; stay consistent.
    expect(first.length).toBeGreaterThanOrEqual(12);
  });

  it('derives different development passwords for different schemas', () => {
    expect(servicePassword({ nodeEnv: 'development', schema: 'media' })).not.toBe(servicePassword({ nodeEnv: 'development', schema: 'templates' }));
  });

  it('prefers an explicit password outside production too', () => {
    expect(servicePassword({ explicit: 'set-by-operator', nodeEnv: 'development', schema: 'media' })).toBe('set-by-operator');
  });

  it('does not reveal the schema name in the derived password', () => {
    expect(servicePassword({ nodeEnv: 'development', schema: 'media' })).not.toContain('media');
  });
});
