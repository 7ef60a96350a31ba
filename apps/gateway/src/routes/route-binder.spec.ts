import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import express from 'express';
import { Type } from '@sinclair/typebox';
import { PERMISSIONS } from '@contracts/domain';
import { unauthorized } from '@platform/errors';
import type { Principal } from '@platform/grpc';
import { createLogger } from '@platform/logging';
import type { BackendConnections } from '../backends/typed-client';
import { createAdminAuthenticator } from '../http/authenticate';
import { problemHandler } from '../http/problem.middleware';
import type { IdempotentWrites } from '../idempotency/idempotent-writes';
import { createRateLimit } from '../rate-limits/rate-limit';
import type { RateLimitCounter } from '../rate-limits/rate-limit-counter';
import { bindRoutes } from './route-binder';
import { AccountId, PathParams } from './common.schemas';
import { defineRoute, type LocalServices, type RouteSpec } from './route.types';

const principal: Principal = {
  keyId: 'viewer',
  orgId: 'acme',
  accountIds: [7],
  permissions: [PERMISSIONS.assetLibraryView],
  org: { isRetailer: true, dimensionWhitelist: [] },
};

/** What each handler saw, so a test can tell whether the pipeline let the request through. */
const handled: string[] = [];

const ROUTES: RouteSpec[] = [
  defineRoute({
    operationId: 'adminThing',
    method: 'post',
    path: '/admin/v1/things',
    tag: 'admin',
    summary: 'An admin operation',
    auth: 'admin',
    scope: 'none',
    body: Type.Object({ name: Type.String({ maxLength: 10 }) }, { additionalProperties: false }),
    success: { status: 201, description: 'Created' },
    handle: async ({ body }) => {
      handled.push(`admin ${body.name}`);
      return { body: { ok: true } };
    },
  }),
  defineRoute({
    operationId: 'streamThing',
    method: 'post',
    path: '/v2/accounts/:accountId/things',
    tag: 'things',
    summary: 'A streamed upload',
    permission: PERMISSIONS.assetLibraryView,
    scope: { account: 'accountId' },
    params: PathParams({ accountId: AccountId }),
    multipartBody: Type.Object({ file: Type.String({ format: 'binary', maxLength: 100 }) }),
    success: { status: 200, description: 'Read' },
    handle: async ({ req }) => {
      // The body is still unread here: the handler streams it.
      handled.push(`stream ${(await text(req)).length}`);
      return { body: { ok: true } };
    },
  }),
  defineRoute({
    operationId: 'editThing',
    method: 'post',
    path: '/v2/accounts/:accountId/edits',
    tag: 'things',
    summary: 'Needs a permission the key lacks',
    permission: PERMISSIONS.assetLibraryEdit,
    scope: { account: 'accountId' },
    params: PathParams({ accountId: AccountId }),
    multipartBody: Type.Object({ file: Type.String({ format: 'binary', maxLength: 100 }) }),
    success: { status: 200, description: 'Read' },
    handle: async () => {
      handled.push('edit');
      return { body: { ok: true } };
    },
  }),
];

/** The order of the checks is what this spec holds; the shared counter itself has its integration spec. */
function countingInMemory(): RateLimitCounter {
  const hits = new Map<string, number>();
  return {
    hit: async (subject, window) => {
      const count = (hits.get(`${subject}@${window}`) ?? 0) + 1;
      hits.set(`${subject}@${window}`, count);
      return count;
    },
    deleteBefore: async () => 0,
  };
}

describe(bindRoutes.name, () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = express();
    app.use(
      bindRoutes(ROUTES, {
        authenticate: async (req) => {
          const key = req.get('x-api-key');
          if (!key?.startsWith('good-')) throw unauthorized('API_KEY_INVALID', 'The API key is invalid or has been revoked.');
          return { ...principal, keyId: key };
        },
        authenticateAdmin: createAdminAuthenticator('admin-token-0123456789'),
        rateLimit: createRateLimit({
          counter: countingInMemory(),
          perKeyPerMinute: 3,
          perAccountPerMinute: 0,
          // Mid-window, so the spec's requests never straddle a minute.
          now: () => 30_000,
          logger: createLogger({ service: 'route-binder-test', level: 'silent' }),
        }),
        idempotency: {
          begin: () => Promise.reject(new Error('no request of this spec sends an Idempotency-Key')),
        } as IdempotentWrites,
        bodyLimitBytes: 1024,
        local: {} as LocalServices,
        backends: { bind: () => ({}) } as unknown as BackendConnections,
        principalKey: randomBytes(32),
        deadlineMs: 1000,
      }),
    );
    app.use(problemHandler(createLogger({ service: 'route-binder-test', level: 'silent' })));
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => handled.splice(0));

  const post = async (path: string, headers: Record<string, string>, body: string) => {
    const response = await fetch(`${base}${path}`, { method: 'POST', headers, body });
    return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers };
  };
  const multipart = (key?: string) => ({
    'content-type': 'multipart/form-data; boundary=b',
    ...(key ? { 'x-api-key': key } : {}),
  });
  const form = '--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello\r\n--b--\r\n';

  it('serves an admin route with the admin token only: not with an API key, not without', async () => {
    const json = { 'content-type': 'application/json' };
    expect((await post('/admin/v1/things', { ...json, authorization: 'Bearer admin-token-0123456789' }, '{"name":"x"}')).status).toBe(201);
    expect((await post('/admin/v1/things', { ...json, authorization: 'Bearer good-key' }, '{"name":"x"}')).body.code).toBe('ADMIN_TOKEN_INVALID');
    expect((await post('/admin/v1/things', { ...json, 'x-api-key': 'good-key' }, '{"name":"x"}')).body.code).toBe('ADMIN_TOKEN_INVALID');
    expect(handled).toEqual(['admin x']);
  });

  it('validates an admin body after the token, as every route does', async () => {
    const refused = await post(
      '/admin/v1/things',
      { 'content-type': 'application/json', authorization: 'Bearer admin-token-0123456789' },
      '{"name":"far too long"}',
    );
    expect(refused.status).toBe(400);
    expect(handled).toEqual([]);
  });

  it('hands a multipart body to the handler unread, after the key, scope and permission checks', async () => {
    expect((await post('/v2/accounts/7/things', multipart('good-key'), form)).status).toBe(200);
    expect(handled).toEqual([`stream ${form.length}`]);
    expect((await post('/v2/accounts/7/things', multipart(), form)).body.code).toBe('API_KEY_INVALID');
    expect((await post('/v2/accounts/8/things', multipart('good-key'), form)).body.code).toBe('ACCOUNT_NOT_FOUND');
    expect((await post('/v2/accounts/7/edits', multipart('good-key'), form)).body.code).toBe('PERMISSION_DENIED');
    expect(handled).toHaveLength(1);
  });

  it('refuses a JSON body on a multipart route with 415, and counts streamed requests against the rate limit', async () => {
    const json = await post('/v2/accounts/7/things', { 'content-type': 'application/json', 'x-api-key': 'good-json-sender' }, '{}');
    expect([json.status, json.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    // The media type is checked after scope and permission: another tenant's account is still just not found.
    const elsewhere = await post('/v2/accounts/8/things', { 'content-type': 'application/json', 'x-api-key': 'good-json-sender' }, '{}');
    expect([elsewhere.status, elsewhere.body.code]).toEqual([404, 'ACCOUNT_NOT_FOUND']);
    // Three a minute per key: the fourth upload of a fresh key is refused before its body is read.
    for (let i = 0; i < 3; i += 1) expect((await post('/v2/accounts/7/things', multipart('good-uploader'), form)).status).toBe(200);
    const limited = await post('/v2/accounts/7/things', multipart('good-uploader'), form);
    expect([limited.status, limited.body.code]).toEqual([429, 'RATE_LIMITED']);
    expect(handled).toHaveLength(3);
  });
});
