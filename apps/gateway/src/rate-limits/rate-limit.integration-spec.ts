import { AppError } from '@platform/errors';
import { createLogger } from '@platform/logging';
import { openTestSchema, type TestSchema } from '@platform/testing';
import { createIdentityTables } from '../identity/identity.migrations';
import { createIdempotentRequests } from '../idempotency/idempotency.migrations';
import { createRateLimit, type RateLimitOptions } from './rate-limit';
import { createRateLimitCounter, type RateLimitCounter } from './rate-limit-counter';
import { createRateLimitWindows } from './rate-limit.migrations';

const logger = createLogger({ service: 'rate-limit-test', level: 'silent' });
/** 45 s into a minute: 15 s until the window resets. */
const MID_WINDOW = 1_000 * 60_000 + 45_000;

describe('rate limits counted in the gateway schema', () => {
  let schema: TestSchema;
  let counter: RateLimitCounter;
  // The counter is given seconds, not the default 100 ms, so a loaded machine never turns a counting spec
  // into a fail-open one; the hung-counter spec sets the wait it measures.
  const limit = (options: Partial<RateLimitOptions>) =>
    createRateLimit({ counter, perKeyPerMinute: 3, perAccountPerMinute: 0, counterWaitMs: 5_000, logger, now: () => MID_WINDOW, ...options });

  beforeAll(async () => {
    schema = await openTestSchema({
      tag: 'ratelimit',
      base: 'gateway_identity',
      migrations: [createIdentityTables, createIdempotentRequests, createRateLimitWindows],
    });
    counter = createRateLimitCounter(schema.db);
  });
  afterAll(() => schema.close());

  it('lets a key spend its budget, then answers 429 with Retry-After until the window ends', async () => {
    const perKey = limit({});
    for (let i = 0; i < 3; i++) expect((await perKey.consume({ keyId: 'k1' }))['RateLimit-Remaining']).toBe(String(2 - i));
    const error = (await perKey.consume({ keyId: 'k1' }).catch((e) => e)) as AppError;
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(error.headers).toMatchObject({ 'Retry-After': '15', 'RateLimit-Remaining': '0', 'RateLimit-Limit': '3', 'RateLimit-Reset': '15' });
  });

  it('shares one budget between limiters that share the store, as two gateway replicas do', async () => {
    const [replicaA, replicaB] = [limit({}), limit({})];
    await replicaA.consume({ keyId: 'shared' });
    await replicaB.consume({ keyId: 'shared' });
    await expect(replicaA.consume({ keyId: 'shared' })).resolves.toMatchObject({ 'RateLimit-Remaining': '0' });
    await expect(replicaB.consume({ keyId: 'shared' })).rejects.toMatchObject({ status: 429 });
  });

  it('keeps separate budgets per key and per account, and a new one each minute', async () => {
    const both = limit({ perKeyPerMinute: 1, perAccountPerMinute: 2 });
    await both.consume({ keyId: 'a' });
    await expect(both.consume({ keyId: 'b' })).resolves.toMatchObject({ 'RateLimit-Remaining': '0' });
    await expect(both.consume({ keyId: 'a' })).rejects.toMatchObject({ status: 429 });
    await both.consume({ accountId: 7 });
    await both.consume({ accountId: 7 });
    await expect(both.consume({ accountId: 7 })).rejects.toMatchObject({ status: 429, detail: expect.stringContaining('Account 7') });
    const nextMinute = limit({ perKeyPerMinute: 1, now: () => MID_WINDOW + 60_000 });
    await expect(nextMinute.consume({ keyId: 'a' })).resolves.toMatchObject({ 'RateLimit-Remaining': '0' });
  });

  it('lets exactly the budget through when requests arrive at once on several replicas', async () => {
    const replicas = [limit({ perKeyPerMinute: 7 }), limit({ perKeyPerMinute: 7 }), limit({ perKeyPerMinute: 7 })];
    const outcomes = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => replicas[i % 3].consume({ keyId: 'burst' })));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(7);
  });

  it('reserves a busy key in leases (one statement per lease), and never lets more than the budget through', async () => {
    const window = Math.floor(MID_WINDOW / 60_000);
    const statements: number[] = [];
    const counting: RateLimitCounter = {
      hit: (subject, at, hits) => {
        statements.push(hits ?? 1);
        return counter.hit(subject, at, hits);
      },
      deleteBefore: counter.deleteBefore,
    };
    const [busyA, busyB] = [limit({ counter: counting, perKeyPerMinute: 1000 }), limit({ counter: counting, perKeyPerMinute: 1000 })];
    let admitted = 0;
    for (let i = 0; i < 1200; i++) {
      const outcome = await (i % 2 === 0 ? busyA : busyB).consume({ keyId: 'busy' }).then(
        () => true,
        () => false,
      );
      if (outcome) admitted++;
    }
    // Leases of 1, 2, 4, 8, then 10 (1% of 1000): far fewer statements than requests.
    expect(statements.slice(0, 5)).toEqual([1, 1, 2, 2, 4]);
    expect(statements.length).toBeLessThan(250);
    // Early by at most one lease per replica, never late.
    expect(admitted).toBeLessThanOrEqual(1000);
    expect(admitted).toBeGreaterThanOrEqual(1000 - 2 * 10);
    expect(await counter.hit('key:busy', window, 0)).toBeGreaterThanOrEqual(1000);
  });

  it('removes past windows', async () => {
    const window = Math.floor(MID_WINDOW / 60_000);
    await counter.hit('key:old', window - 5);
    expect(await counter.deleteBefore(window, 1000)).toBeGreaterThanOrEqual(1);
    expect(await counter.hit('key:old', window - 5)).toBe(1);
  });

  it('lets requests through while the counter cannot be reached', async () => {
    const unreachable = limit({ counter: { hit: () => Promise.reject(new Error('connection refused')), deleteBefore: async () => 0 } });
    await expect(unreachable.consume({ keyId: 'k' })).resolves.toEqual({});
  });

  it('lets a request through after a short wait when the counter hangs', async () => {
    const hung = limit({ counter: { hit: () => new Promise<number>(() => undefined), deleteBefore: async () => 0 }, counterWaitMs: 100 });
    const started = Date.now();
    await expect(hung.consume({ keyId: 'k' })).resolves.toEqual({});
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('is off at 0', async () => {
    const off = limit({ perKeyPerMinute: 0 });
    for (let i = 0; i < 10; i++) await expect(off.consume({ keyId: 'k' })).resolves.toEqual({});
  });
});
