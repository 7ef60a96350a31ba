import { timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { unauthorized } from '@platform/errors';
import type { Principal } from '@platform/grpc';

export type Authenticator = (req: Request) => Promise<Principal>;

/** The token of an `Authorization: Bearer <token>` header; undefined when absent or malformed. */
export function bearerToken(req: Request): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
}

/**
 * Accepts `Authorization: Bearer <key>` or `X-Api-Key: <key>` (docs/architecture.md, "Identity and the admin API"). A malformed
 * Authorization header yields '' (a key that is presented but invalid), not "no key".
 */
export function presentedApiKey(req: Request): string | undefined {
  if (req.get('authorization')) return bearerToken(req) ?? '';
  return req.get('x-api-key')?.trim();
}

export function createAuthenticator(resolve: (apiKey: string) => Promise<Principal | null>): Authenticator {
  return async (req) => {
    const apiKey = presentedApiKey(req);
    if (apiKey === undefined) {
      throw unauthorized('AUTHENTICATION_REQUIRED', 'Send an API key as "Authorization: Bearer <apiKey>" or "X-Api-Key: <apiKey>".');
    }
    const principal = apiKey === '' ? null : await resolve(apiKey);
    if (!principal) throw unauthorized('API_KEY_INVALID', 'The API key is invalid or has been revoked.');
    return principal;
  };
}

/** Checks a request for the operator's ADMIN_TOKEN (the admin routes); throws 401 otherwise. */
export type AdminAuthenticator = (req: Request) => void;

export function createAdminAuthenticator(adminToken: string): AdminAuthenticator {
  const expected = Buffer.from(adminToken);
  // Compared in constant time: a byte-by-byte early exit would let a caller find the token by timing.
  const matches = (given: string) => {
    const presented = Buffer.from(given);
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  };
  return (req) => {
    const token = bearerToken(req);
    if (token === undefined || !matches(token)) throw unauthorized('ADMIN_TOKEN_INVALID', 'The admin API needs "Authorization: Bearer <ADMIN_TOKEN>".');
  };
}
