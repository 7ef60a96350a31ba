import { randomBytes } from 'node:crypto';
import { createSecretBox, resolveKey } from './secret-box';

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
