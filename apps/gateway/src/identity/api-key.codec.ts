import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Keys look like `rmk_<keyId>_<secret>`: the id makes lookup one indexed read, the 256-bit secret
 * makes a fast hash safe (no dictionary to attack), so SHA-256 at rest is enough and cheap per request.
 */
const KEY_PATTERN = /^rmk_([A-Za-z0-9]{16})_([A-Za-z0-9_-]{43})$/;

export interface IssuedApiKey {
  keyId: string;
  apiKey: string;
  secretSha256: Buffer;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomId(length: number): string {
  const bytes = randomBytes(length);
  return Array.from(bytes, (b) => ALPHANUMERIC[b % ALPHANUMERIC.length]).join('');
}

export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest();

export function issueApiKey(): IssuedApiKey {
  const keyId = randomId(16);
  const secret = randomBytes(32).toString('base64url');
  return { keyId, apiKey: `rmk_${keyId}_${secret}`, secretSha256: hashSecret(secret) };
}

export function parseApiKey(apiKey: string): { keyId: string; secret: string } | null {
  const match = KEY_PATTERN.exec(apiKey);
  return match ? { keyId: match[1], secret: match[2] } : null;
}

export function secretMatches(secret: string, storedSha256: Buffer): boolean {
  const given = hashSecret(secret);
  return given.length === storedSha256.length && timingSafeEqual(given, storedSha256);
}
