import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Prefix of a signing secret, so one pasted in the wrong place is recognisable. */
const SECRET_PREFIX = 'whsec_';

/** A new signing secret: 32 random bytes, base64url, behind the prefix. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/**
 * `v1=<hex HMAC-SHA256 of "<timestamp>.<body>">`, keyed with the secret as answered at create (its
 * UTF-8 bytes, prefix included). The timestamp is signed with the body so a receiver that refuses old
 * timestamps also refuses a captured request sent again later.
 */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * What a receiver does, here for the specs and as the reference for the documentation: recompute the
 * signature, compare in constant time, and refuse a timestamp further than `toleranceSeconds` from now.
 */
export function verifyWebhookSignature(
  secret: string,
  headers: { timestamp: string | undefined; signature: string | undefined },
  body: string,
  { nowSeconds = Math.floor(Date.now() / 1000), toleranceSeconds = 300 } = {},
): boolean {
  const timestamp = Number(headers.timestamp);
  if (!headers.signature || !Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(webhookSignature(secret, timestamp, body));
  const given = Buffer.from(headers.signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
