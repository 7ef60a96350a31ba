import { randomBytes } from 'node:crypto';
import { createSecretBox, developmentKey, resolveKey, secretBoxFromConfig } from './secret-box';

describe(createSecretBox.name, () => {
  const box = createSecretBox(randomBytes(32));

  it('round-trips and never stores the plaintext', () => {
    const sealed = box.seal('s3cr3t-value');
    expect(sealed.toString('latin1')).not.toContain('s3cr3t');
    expect(box.open(sealed)).toBe('s3cr3t-value');
  });

  it('uses a fresh IV each time', () => {
    expect(box.seal('same').equals(box.seal('same'))).toBe(false);
  });

  it('refuses a tampered ciphertext and another key', () => {
    const sealed = box.seal('value');
    sealed[sealed.length - 1] ^= 1;
    expect(() => box.open(sealed)).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(box.seal('value'))).toThrow();
  });
});

describe(resolveKey.name, () => {
  it('requires a key in production and warns outside it', () => {
    expect(() => resolveKey({ nodeEnv: 'production', variable: 'K', warn: () => undefined })).toThrow(/K is required/);
    const warnings: string[] = [];
    expect(resolveKey({ nodeEnv: 'development', variable: 'K', warn: (m) => warnings.push(m) })).toHaveLength(32);
    expect(warnings).toHaveLength(1);
  });
});

describe(secretBoxFromConfig.name, () => {
  it('seals with the configured key, so another box of that key opens it', () => {
    const key = randomBytes(32);
    const sealed = secretBoxFromConfig({ SECRETS_ENCRYPTION_KEY: key, NODE_ENV: 'production' }, () => undefined).seal('value');
    expect(createSecretBox(key).open(sealed)).toBe('value');
  });

  it('falls back to the development key with a warning outside production, and refuses to start without a key in production', () => {
    const warnings: string[] = [];
    const sealed = secretBoxFromConfig({ NODE_ENV: 'development' }, (m) => warnings.push(m)).seal('value');
    expect(createSecretBox(developmentKey('SECRETS_ENCRYPTION_KEY')).open(sealed)).toBe('value');
    expect(warnings).toEqual([expect.stringContaining('SECRETS_ENCRYPTION_KEY')]);
    expect(() => secretBoxFromConfig({ NODE_ENV: 'production' }, () => undefined)).toThrow(/SECRETS_ENCRYPTION_KEY is required/);
  });
});
