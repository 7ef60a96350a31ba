import { RateLimiterMemory } from 'rate-limiter-flexible';
import { createLogger } from '@platform/logging';
import { openTestSchema } from '@platform/testing';
import { createIdempotencyStore } from '../apps/gateway/src/idempotency/idempotency.store';
import { createIdempotentRequests } from '../apps/gateway/src/idempotency/idempotency.migrations';
import { requestFingerprint } from '../apps/gateway/src/idempotency/idempotency-key';
import { createIdentityTables } from '../apps/gateway/src/identity/identity.migrations';
import { createRateLimit } from '../apps/gateway/src/rate-limits/rate-limit';
import { createRateLimitCounter } from '../apps/gateway/src/rate-limits/rate-limit-counter';
import { createRateLimitWindows } from '../apps/gateway/src/rate-limits/rate-limit.migrations';
import { cpuTimeMs, findPidByCommand, machineBusyFraction } from './harness/cpu-time';

/**
 * What the shared rate limits and idempotency keys cost the gateway per request, in process, against
 * the real MariaDB: the per-process limiter they replaced (baseline), one counter statement per
 * request, the leased limiter the gateway runs, and an idempotent write's claim and answer. Calls run
 * CONCURRENCY at a time, as requests do; CPU is this process's (the gateway's side) and mariadbd's.
 */
const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const CONCURRENCY = Number(process.env.BENCH_CONNECTIONS ?? 32);

interface Figure {
  name: string;
  callsPerSec: number;
  gatewayCpuMs: number;
  mariadbCpuMs: number | undefined;
}

async function measure(name: string, calls: number, call: (i: number) => Promise<unknown>): Promise<Figure> {
  const mariadb = findPidByCommand('mariadbd') ?? findPidByCommand('mysqld');
  for (let i = 0; i < Math.min(500, calls); i++) await call(-1 - i); // warm-up: JIT, prepared statements, pool
  const cpuBefore = process.cpuUsage();
  const dbBefore = mariadb === undefined ? undefined : cpuTimeMs(mariadb);
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < calls) await call(next++);
    }),
  );
  const elapsedMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const dbAfter = mariadb === undefined ? undefined : cpuTimeMs(mariadb);
  return {
    name,
    callsPerSec: Math.round((calls / elapsedMs) * 1000),
    gatewayCpuMs: (cpu.user + cpu.system) / 1000 / calls,
    mariadbCpuMs: dbBefore === undefined || dbAfter === undefined ? undefined : (dbAfter - dbBefore) / calls,
  };
}

async function main(): Promise<void> {
  const schema = await openTestSchema({
    tag: 'bench_limits',
    base: 'gateway_identity',
    migrations: [createIdentityTables, createIdempotentRequests, createRateLimitWindows],
  });
  try {
    const logger = createLogger({ service: 'bench', level: 'silent' });
    const counter = createRateLimitCounter(schema.db);
    const busy = await machineBusyFraction();
    const window = Math.floor(Date.now() / 60_000);
    const inProcess = new RateLimiterMemory({ points: 100_000_000, duration: 60 });
    const leased = createRateLimit({ counter, perKeyPerMinute: 100_000_000, perAccountPerMinute: 0, logger });
    const store = createIdempotencyStore(schema.db, { ttlMs: 86_400_000, leaseMs: 300_000 });
    const answer = { status: 201, headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: Buffer.from('{"retailCampaignId":1}') };
    const figures = [
      await measure('per-process limiter (replaced; baseline)', CALLS, () => inProcess.consume('key')),
      await measure('one counter statement per request', CALLS, () => counter.hit('key:per-request', window)),
      await measure('shared limiter in leases (as deployed)', CALLS, () => leased.consume({ keyId: 'leased' })),
      await measure('idempotent write: claim + keep the answer', CALLS / 4, async (i) => {
        const scope = { tenant: 'account:1', operation: 'createRetailCampaign', key: `bench-${i}` };
        const fingerprint = requestFingerprint({ operation: scope.operation, params: { accountId: 1 }, query: {}, body: { campaignName: `c${i}` } });
        await store.claim(scope, fingerprint);
        await store.complete(scope, fingerprint, answer);
      }),
      await measure('idempotent write: replay of a kept answer', CALLS / 4, async (i) => {
        const k = Math.abs(i) % 1000;
        const scope = { tenant: 'account:1', operation: 'createRetailCampaign', key: `bench-${k}` };
        await store.claim(scope, requestFingerprint({ operation: scope.operation, params: { accountId: 1 }, query: {}, body: { campaignName: `c${k}` } }));
      }),
    ];
    console.log(`shared limits: ${CALLS} calls, ${CONCURRENCY} at a time; machine busy before measuring: ${Math.round(busy * 100)}% of all cores`);
    console.log('                                              calls/s  CPU ms/call (this process)  mariadbd ms/call');
    for (const f of figures)
      console.log(
        `${f.name.padEnd(46)}${String(f.callsPerSec).padStart(7)}  ${f.gatewayCpuMs.toFixed(4).padStart(26)}  ${(f.mariadbCpuMs?.toFixed(4) ?? 'n/a').padStart(16)}`,
      );
    const [base, , asDeployed] = figures;
    console.log(`shared limiter / per-process limiter, CPU per call in this process: ${(asDeployed.gatewayCpuMs / base.gatewayCpuMs).toFixed(2)}x`);
  } finally {
    await schema.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
