import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** Version byte first, so the format can change without guessing which ciphertexts are old. */
const FORMAT_V1 = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretBox {
  seal(plaintext: string): Buffer;
  open(sealed: Buffer): string;
}

/**
 * AES-256-GCM for write-only secrets at rest (customer keys, passwords, ad-server API keys).
 * Layout: [version][iv][tag][ciphertext]. GCM authenticates, so a tampered row fails to open.
 */
export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('SecretBox key must be 32 bytes');
  return {
    seal(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.from([FORMAT_V1]), iv, cipher.getAuthTag(), ciphertext]);
    },
    open(sealed) {
      if (sealed[0] !== FORMAT_V1) throw new Error('Unknown secret format');
      const iv = sealed.subarray(1, 1 + IV_BYTES);
      const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * Outside production a missing key falls back to one derived from a fixed label, so `npm start`
 * works on a fresh machine; production must configure a real key (checked at start-up).
 */
export function developmentKey(label: string): Buffer {
  return createHash('sha256').update(`retail-media-development-only:${label}`).digest();
}

/** Returns the configured key, or the development key with a warning; throws in production. */
export function resolveKey(options: { configured?: Buffer; nodeEnv: string; variable: string; warn: (msg: string) => void }): Buffer {
  if (options.configured) return options.configured;
  if (options.nodeEnv === 'production') throw new Error(`${options.variable} is required in production`);
  options.warn(`${options.variable} is not set; using a development-only key`);
  return developmentKey(options.variable);
}

/** What a deployable that seals or opens secrets reads from its config (`secretKey` in @platform/config parses the key). */
export interface SecretsConfig {
  SECRETS_ENCRYPTION_KEY?: Buffer;
  NODE_ENV: string;
}

/**
 * The box of SECRETS_ENCRYPTION_KEY, the one key every service and worker seals and opens secrets
 * with (a secret sealed by one is opened by another). Missing outside production: the development
 * key, with a warning; missing in production: a start-up error.
 */
export function secretBoxFromConfig(config: SecretsConfig, warn: (message: string) => void): SecretBox {
  return createSecretBox(resolveKey({ configured: config.SECRETS_ENCRYPTION_KEY, nodeEnv: config.NODE_ENV, variable: 'SECRETS_ENCRYPTION_KEY', warn }));
}
