import { internal, problem } from '@platform/errors';
import { createLogger } from '@platform/logging';
import { openTestSchema, rejectionOf, type TestSchema } from '@platform/testing';
import { createIdentityTables } from '../identity/identity.migrations';
import { createRateLimitWindows } from '../rate-limits/rate-limit.migrations';
import { requestFingerprint } from './idempotency-key';
import { createIdempotencyStore, type IdempotencyScope, type IdempotencyStore } from './idempotency.store';
import { createIdempotentRequests } from './idempotency.migrations';
import { idempotentWrites, type IdempotentWrite } from './idempotent-writes';

const fingerprint = (body: unknown) => requestFingerprint({ operation: 'createThing', params: { accountId: 7 }, query: {}, body });
const answer = { status: 201, headers: { Location: '/v2/things/1', 'Content-Type': 'application/json; charset=utf-8' }, body: Buffer.from('{"id":1}') };

describe('idempotency keys in the gateway schema', () => {
  let schema: TestSchema;
  let store: IdempotencyStore;
  let n = 0;
  const scope = (): IdempotencyScope => ({ tenant: 'account:7', operation: 'createThing', key: `key-${++n}` });

  beforeAll(async () => {
    schema = await openTestSchema({
      tag: 'idem',
      base: 'gateway_identity',
      migrations: [createIdentityTables, createIdempotentRequests, createRateLimitWindows],
    });
    store = createIdempotencyStore(schema.db, { ttlMs: 60_000, leaseMs: 60_000 });
  });
  afterAll(() => schema.close());

  it('claims a new key, then replays the stored answer to the same request', async () => {
    const key = scope();
    await expect(store.claim(key, fingerprint({ a: 1 }))).resolves.toEqual({ outcome: 'claimed' });
    await store.complete(key, fingerprint({ a: 1 }), answer);
    const again = await store.claim(key, fingerprint({ a: 1 }));
    expect(again).toEqual({ outcome: 'replay', answer });
  });

  it('refuses the key for another request, whether the first still runs or has answered', async () => {
    const key = scope();
    await store.claim(key, fingerprint({ a: 1 }));
    await expect(store.claim(key, fingerprint({ a: 2 }))).resolves.toEqual({ outcome: 'mismatch' });
    await store.complete(key, fingerprint({ a: 1 }), answer);
    await expect(store.claim(key, fingerprint({ a: 2 }))).resolves.toEqual({ outcome: 'mismatch' });
  });

  it('answers in-flight while the first request runs, and lets exactly one of many concurrent claims run', async () => {
    const key = scope();
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => store.claim(key, fingerprint({ a: 1 }))));
    expect(outcomes.filter((o) => o.outcome === 'claimed')).toHaveLength(1);
    expect(outcomes.filter((o) => o.outcome === 'in-flight')).toHaveLength(9);
  });

  it('forgets a released claim, so that a retry runs again', async () => {
    const key = scope();
    await store.claim(key, fingerprint({ a: 1 }));
    await store.release(key, fingerprint({ a: 1 }));
    await expect(store.claim(key, fingerprint({ a: 1 }))).resolves.toEqual({ outcome: 'claimed' });
  });

  it('keeps keys apart per tenant and operation', async () => {
    const key = scope();
    await store.claim(key, fingerprint({ a: 1 }));
    await expect(store.claim({ ...key, tenant: 'account:8' }, fingerprint({ a: 2 }))).resolves.toEqual({ outcome: 'claimed' });
    await expect(store.claim({ ...key, operation: 'updateThing' }, fingerprint({ a: 2 }))).resolves.toEqual({ outcome: 'claimed' });
  });

  it('lets a retry take over a claim whose lease lapsed (its gateway died), and a new request reuse an expired key', async () => {
    const key = scope();
    await store.claim(key, fingerprint({ a: 1 }));
    await schema.db
      .knex('idempotent_requests')
      .where({ idempotency_key: key.key })
      .update({ lease_until: schema.db.knex.raw('NOW(3) - INTERVAL 1 SECOND') });
    await expect(store.claim(key, fingerprint({ a: 1 }))).resolves.toEqual({ outcome: 'claimed' });
    await store.complete(key, fingerprint({ a: 1 }), answer);
    await schema.db
      .knex('idempotent_requests')
      .where({ idempotency_key: key.key })
      .update({ expires_at: schema.db.knex.raw('NOW(3) - INTERVAL 1 SECOND') });
    await expect(store.claim(key, fingerprint({ a: 2 }))).resolves.toEqual({ outcome: 'claimed' });
  });

  it('sweeps expired keys only', async () => {
    const [expired, live] = [scope(), scope()];
    await store.claim(expired, fingerprint({}));
    await store.claim(live, fingerprint({}));
    await schema.db
      .knex('idempotent_requests')
      .where({ idempotency_key: expired.key })
      .update({ expires_at: schema.db.knex.raw('NOW(3) - INTERVAL 1 SECOND') });
    expect(await store.deleteExpired(1000)).toBe(1);
    await expect(store.claim(live, fingerprint({}))).resolves.toEqual({ outcome: 'in-flight' });
  });

  describe('what the binder keeps of an answer', () => {
    const writes = () => idempotentWrites(store, createLogger({ service: 'idem-test', level: 'silent' }), 5_000);
    const where = { instance: '/v2/accounts/7/things', requestId: 'req-12345678' };
    const start = async (key: IdempotencyScope) => {
      const started = await writes().begin(key, fingerprint({}));
      if (!('write' in started)) throw new Error('expected a claim');
      return started.write as IdempotentWrite;
    };

    it('keeps a client error and replays it as the problem it was', async () => {
      const key = scope();
      await (await start(key)).failed(problem('ACCOUNT_NOT_FOUND', 'Account 7 was not found.'), where);
      const replay = await writes().begin(key, fingerprint({}));
      expect(replay).toEqual({ replay: expect.objectContaining({ status: 404, headers: { 'Content-Type': 'application/problem+json' } }) });
      expect(JSON.parse(String((replay as { replay: { body: Buffer } }).replay.body))).toMatchObject({ code: 'ACCOUNT_NOT_FOUND', ...where });
    });

    it.each([
      ['a failure of ours (5xx)', internal()],
      ['a rate limit (429)', problem('RATE_LIMITED', 'slow down')],
      ['an error that is no problem', new Error('boom')],
    ])('keeps nothing after %s, so that a retry runs again', async (_case, error) => {
      const key = scope();
      await (await start(key)).failed(error, where);
      expect(await writes().begin(key, fingerprint({}))).toEqual({ write: expect.any(Object) });
    });

    it('keeps nothing of a 5xx answer or a streamed one', async () => {
      const [failed, streamed] = [scope(), scope()];
      await (await start(failed)).succeeded({ status: 503, headers: {}, body: Buffer.alloc(0) });
      await (await start(streamed)).abandon();
      for (const key of [failed, streamed]) expect(await writes().begin(key, fingerprint({}))).toEqual({ write: expect.any(Object) });
    });

    it('answers 409 while the first runs and 422 for another request, as problems', async () => {
      const key = scope();
      await start(key);
      expect(await rejectionOf(writes().begin(key, fingerprint({})))).toMatchObject({
        status: 409,
        code: 'IDEMPOTENCY_REQUEST_IN_PROGRESS',
        headers: { 'Retry-After': '1' },
      });
      expect(await rejectionOf(writes().begin(key, fingerprint({ other: true })))).toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
    });
  });

  it('hashes the same request the same whatever the order of its members', () => {
    expect(fingerprint({ a: 1, b: { c: [1, 2], d: 'x' } })).toEqual(fingerprint({ b: { d: 'x', c: [1, 2] }, a: 1 }));
    expect(fingerprint({ a: 1 })).not.toEqual(fingerprint({ a: '1' }));
  });
});
