import autocannon from 'autocannon';
import { cpuTimeMs, machineBusyFraction } from './harness/cpu-time';
import { apiClient, expectJson } from './harness/http-api';
import { measure, type Measurement } from './harness/measure';
import { rssMiB } from './harness/memory';
import { startPlatform } from './harness/platform';
import { seedRetailerOrg } from './harness/seed';
import { loadSettingsFromEnv } from './harness/settings';
import { withTeardown } from './harness/teardown';

/**
 * A mixed read/write load held for SOAK_DURATION seconds (ten minutes by default) against a gateway and
 * channels-plans: the cached list of an org's media channels, single channels by idx (never cached:
 * every one goes gateway -> gRPC -> channels-plans -> MariaDB), creates, and updates (each of which
 * invalidates the cached list on every replica). It passes when no answer is a 5xx or a connection
 * error and the processes' memory holds steady; it prints the CPU per request of the cached list and
 * of the uncached single read, measured first with the same harness as every other benchmark.
 */
const CHANNELS = 30;
const ORG_ID = 'soak-retailer';
/** Memory is judged after this share of the run, once pools, caches and JIT have filled. */
const SETTLE_SHARE = 0.25;
/** Steady memory: the last sample's RSS at most this much above the median after settling. */
const MAX_RSS_GROWTH = 0.2;

function seconds(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw ? Number(raw) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer of seconds, got ${JSON.stringify(raw)}`);
  return value;
}

const channelBody = (name: string, i: number) =>
  JSON.stringify({
    name,
    adServerId: 'gam',
    type: 'Off-site',
    activationConfiguration: { tagGeneration: true, creativeGeneration: false },
    additionalConfiguration: { networkCode: `2190${i}`, placement: 'homepage-top', sizes: ['300x250', '728x90'] },
  });

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const durationSec = seconds('SOAK_DURATION', 600);
  const connections = seconds('SOAK_CONNECTIONS', 16);
  const sampleSec = seconds('SOAK_SAMPLE', 10);
  const settings = loadSettingsFromEnv();
  console.log(
    `soak: ${connections} connections for ${durationSec} s (memory every ${sampleSec} s); CPU figures: ${settings.connections} connections, ${settings.durationSec} s`,
  );

  await withTeardown(async (defer) => {
    const platform = await startPlatform('soak', defer);
    const api = apiClient(platform.gatewayUrl);
    const { orgId, apiKey } = await seedRetailerOrg(api, ORG_ID);
    // The idx each create answered: idx values are unique, not gap-free (a retried insert skips one).
    const seeded: number[] = [];
    for (let i = 1; i <= CHANNELS; i++) {
      const { idx } = expectJson<{ idx: number }>(
        await api('POST', `/v2/org/${orgId}/retail-media-channels`, { token: apiKey, json: JSON.parse(channelBody(`Soak channel ${i}`, i)) }),
        201,
        `create channel ${i}`,
      );
      seeded.push(idx);
    }
    const auth = { authorization: `Bearer ${apiKey}` };
    const listPath = `/v2/org/${orgId}/retail-media-channels?limit=25`;
    const onePath = (idx: number) => `/v2/org/${orgId}/retail-media-channels/${idx}`;
    const busy = await machineBusyFraction();
    console.log(`machine busy before measuring: ${(busy * 100).toFixed(0)}% of all cores`);

    // CPU per request: the cached list beside a single read that no cache answers.
    const cpuOf = platform.pids;
    const figures: Measurement[] = [];
    figures.push(await measure({ ...settings, name: 'cached list (25 of 30)', url: `${platform.gatewayUrl}${listPath}`, headers: auth, cpuOf }));
    figures.push(
      await measure({ ...settings, name: 'uncached single read (channel by idx)', url: `${platform.gatewayUrl}${onePath(seeded[6])}`, headers: auth, cpuOf }),
    );
    for (const figure of figures) {
      const cpu = Object.entries(figure.cpuMsPerRequest)
        .map(([name, ms]) => `${name} ${ms.toFixed(3)}`)
        .join(', ');
      const total = Object.values(figure.cpuMsPerRequest).reduce((sum, ms) => sum + ms, 0);
      console.log(
        `${figure.name}: ${figure.requestsPerSec.toFixed(0)} req/s, p50 ${figure.p50Ms.toFixed(2)} ms, p99 ${figure.p99Ms.toFixed(2)} ms, CPU ms/request ${cpu} (together ${total.toFixed(3)}); non-2xx ${figure.non2xx}, errors ${figure.errors}`,
      );
      if (figure.non2xx > 0 || figure.errors > 0) process.exitCode = 1;
    }

    // The soak: per connection, in turn, list, read, list, read, create, update.
    let created = 0;
    let updated = 0;
    /** Status counts per kind of request, and the first body of each unexpected status, for the report. */
    const byKind = new Map<string, Map<number, number>>();
    const firstBodies = new Map<string, string>();
    const tally = (kind: string) => (status: number, body: string) => {
      const counts = byKind.get(kind) ?? new Map<number, number>();
      counts.set(status, (counts.get(status) ?? 0) + 1);
      byKind.set(kind, counts);
      if (status >= 300 && !firstBodies.has(`${kind} ${status}`)) firstBodies.set(`${kind} ${status}`, body.slice(0, 300));
    };
    const readOne = (request: autocannon.Request) => ({ ...request, path: onePath(seeded[Math.floor(Math.random() * seeded.length)]) });
    const requests: autocannon.Request[] = [
      { method: 'GET', path: listPath, headers: auth, onResponse: tally('list') },
      { method: 'GET', setupRequest: readOne, headers: auth, onResponse: tally('read one') },
      { method: 'GET', path: listPath, headers: auth, onResponse: tally('list') },
      { method: 'GET', setupRequest: readOne, headers: auth, onResponse: tally('read one') },
      {
        method: 'POST',
        path: `/v2/org/${orgId}/retail-media-channels`,
        headers: { ...auth, 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: channelBody(`Soak created ${++created}`, created) }),
        onResponse: tally('create'),
      },
      {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/json' },
        setupRequest: (request) => {
          const idx = seeded[updated++ % seeded.length];
          return {
            ...request,
            path: onePath(idx),
            body: JSON.stringify({ additionalConfiguration: { networkCode: `u${updated}`, placement: 'homepage-top' } }),
          };
        },
        onResponse: tally('update'),
      },
    ];
    const statuses = new Map<number, number>();
    const samples: { atSec: number; rss: Record<string, number> }[] = [];
    const started = Date.now();
    const cpuBefore = Object.fromEntries(Object.entries(cpuOf).map(([name, pid]) => [name, cpuTimeMs(pid) ?? 0]));
    const sample = () => {
      const rss: Record<string, number> = {};
      for (const [name, pid] of Object.entries(cpuOf)) rss[name] = rssMiB(pid) ?? Number.NaN;
      samples.push({ atSec: Math.round((Date.now() - started) / 1000), rss });
    };
    sample();
    const sampler = setInterval(sample, sampleSec * 1000);
    const result = await new Promise<autocannon.Result>((done, fail) => {
      const instance = autocannon({ url: platform.gatewayUrl, connections, duration: durationSec, requests }, (error, finished) =>
        error ? fail(error) : done(finished),
      );
      instance.on('response', (_client, statusCode) => statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1));
    });
    clearInterval(sampler);
    sample();

    const responses = [...statuses.values()].reduce((sum, n) => sum + n, 0);
    const serverErrors = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
    const byStatus = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`);
    console.log(`\nsoak: ${responses} responses in ${durationSec} s (${(responses / durationSec).toFixed(0)} req/s); by status ${byStatus.join(', ')}`);
    for (const [kind, counts] of byKind) console.log(`  ${kind}: ${[...counts].map(([status, n]) => `${status}: ${n}`).join(', ')}`);
    for (const [key, body] of firstBodies) console.log(`  first ${key} answer: ${body}`);
    console.log(`connection errors ${result.errors}, timeouts ${result.timeouts}; ${created} channels created, ${updated} updated`);
    console.log(`latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms (autocannon, whole ms)`);
    for (const [name, pid] of Object.entries(cpuOf)) {
      const cpu = (cpuTimeMs(pid) ?? 0) - cpuBefore[name];
      console.log(`${name}: CPU ${(cpu / Math.max(1, responses)).toFixed(3)} ms per response over the soak`);
    }

    let memoryHeld = true;
    const settled = samples.filter((s) => s.atSec >= durationSec * SETTLE_SHARE);
    for (const name of Object.keys(cpuOf)) {
      const series = samples.map((s) => s.rss[name]);
      const settledMedian = median(settled.map((s) => s.rss[name]));
      const last = series[series.length - 1];
      const growth = last / settledMedian - 1;
      const held = growth <= MAX_RSS_GROWTH;
      memoryHeld &&= held;
      console.log(
        `${name} RSS MiB: start ${series[0].toFixed(0)}, median after ${Math.round(SETTLE_SHARE * 100)}% ${settledMedian.toFixed(0)}, max ${Math.max(...series).toFixed(0)}, end ${last.toFixed(0)} (${(growth * 100).toFixed(1)}% over the median: ${held ? 'steady' : 'GROWING'})`,
      );
    }
    console.log(
      `RSS samples (s: ${Object.keys(cpuOf).join(' / ')}): ${samples
        .map(
          (s) =>
            `${s.atSec}: ${Object.values(s.rss)
              .map((v) => v.toFixed(0))
              .join('/')}`,
        )
        .join(', ')}`,
    );

    const valid = serverErrors === 0 && result.errors === 0 && result.timeouts === 0 && memoryHeld;
    console.log(valid ? '\nPASS: no 5xx, no connection error, memory steady' : '\nFAIL: see above');
    if (!valid) process.exitCode = 1;
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
