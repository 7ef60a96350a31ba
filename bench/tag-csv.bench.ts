import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { createPool, type RowDataPacket } from 'mysql2/promise';
import { TAG_CSV_COLUMNS } from '@contracts/domain';
import { machineBusyFraction } from './harness/cpu-time';
import { apiClient, expectJson } from './harness/http-api';
import { percentile } from './harness/percentiles';
import { startPlatform } from './harness/platform';
import { DEV_ADMIN_TOKEN } from './harness/seed';
import { withTeardown } from './harness/teardown';

/**
 * The tag CSV (download-tags) of a retail campaign whose media plan has 20,000 tagged placements,
 * through gateway -> gRPC -> tagging-trackers (keyset pages of 1,000 rows) -> MariaDB, streamed to
 * the client; beside writing the very same rows with the bare CSV library (csv-stringify, the same
 * options) in this process. Reports time to first and last byte and the peak RSS of each side.
 */
const PLACEMENTS = 20_000;
const RUNS = 5;
const ORG_ID = 'bench-tags';
const ADMIN_URL = process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const INSERT_BATCH = 2_000;

/** Resident set and its high-water mark of a process, from /proc (kB → MiB). */
function memoryOf(pid: number): { rssMiB: number; hwmMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssMiB: kb('VmRSS') / 1024, hwmMiB: kb('VmHWM') / 1024 };
}

/** Samples the largest RSS of the given processes every 10 ms until stopped. */
function sampleRss(pids: Record<string, number>): () => Record<string, number> {
  const peak: Record<string, number> = Object.fromEntries(Object.keys(pids).map((name) => [name, 0]));
  const take = () => {
    for (const [name, pid] of Object.entries(pids)) peak[name] = Math.max(peak[name] ?? 0, memoryOf(pid).rssMiB);
  };
  take();
  const timer = setInterval(take, 10);
  return () => {
    clearInterval(timer);
    take();
    return peak;
  };
}

/** A sink that only counts, so the baseline measures the CSV library and not a disk. */
const countingSink = () => {
  let bytes = 0;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      done();
    },
  });
  return { sink, bytes: () => bytes };
};

async function main(): Promise<void> {
  console.log(`tag CSV: ${PLACEMENTS} tagged placements, ${RUNS} downloads and ${RUNS} bare csv-stringify runs`);
  await withTeardown(async (defer) => {
    const platform = await startPlatform('bench', defer, { services: ['tagging-trackers'] });
    const api = apiClient(platform.gatewayUrl);
    const admin = { token: DEV_ADMIN_TOKEN };
    expectJson(
      await api('POST', '/admin/v1/orgs', { ...admin, json: { orgId: ORG_ID, name: 'Bench tags', isRetailer: true, dimensionWhitelist: ['300x250'] } }),
      201,
      'org',
    );
    const { accountId } = expectJson<{ accountId: number }>(
      await api('POST', `/admin/v1/orgs/${ORG_ID}/accounts`, { ...admin, json: { name: 'Tags' } }),
      201,
      'account',
    );
    const { apiKey } = expectJson<{ apiKey: string }>(
      await api('POST', '/admin/v1/api-keys', { ...admin, json: { orgId: ORG_ID, permissions: ['*'] } }),
      201,
      'key',
    );
    const key = { token: apiKey };

    // One real tag through the API, so every seeded row carries a tag of the real size and shape.
    const { idx: channel } = expectJson<{ idx: number }>(
      await api('POST', `/v2/org/${ORG_ID}/retail-media-channels`, {
        ...key,
        json: { name: 'GAM', adServerId: 'gam', type: 'Off-site', activationConfiguration: { tagGeneration: true, creativeGeneration: true } },
      }),
      201,
      'media channel',
    );
    const { retailCampaignId } = expectJson<{ retailCampaignId: number }>(
      await api('POST', `/v2/accounts/${accountId}/retail-campaigns`, { ...key, json: { campaignName: 'Bench "tags", =export' } }),
      201,
      'campaign',
    );
    const { mediaPlanId } = expectJson<{ mediaPlanId: number }>(
      await api('POST', `/v2/accounts/${accountId}/media-plans/auto`, {
        ...key,
        json: { dimensions: ['300x250'], retailCampaignId, mediaChannelIdx: channel },
      }),
      201,
      'media plan',
    );
    const plan = expectJson<{ adServers: { placements: { placementId: string }[] }[] }>(
      await api('GET', `/v2/accounts/${accountId}/media-plans/${mediaPlanId}`, key),
      200,
      'plan',
    );
    const placementId = Number(plan.adServers[0]?.placements[0]?.placementId);
    const tag = expectJson<{ tagValue: string }>(
      await api('POST', `/v2/accounts/${accountId}/media-plans/${mediaPlanId}/placements/${placementId}/tags/rich-media`, {
        ...key,
        json: { campaignId: retailCampaignId, adServerId: 'gam', secureTags: true, enableNoScriptTag: true },
      }),
      200,
      'tag',
    );
    expectJson(await api('PATCH', `/v2/accounts/${accountId}/retail-campaigns/${retailCampaignId}`, { ...key, json: { status: 'ACTIVE' } }), 200, 'activate');

    // The other 19,999 placements' tags go in as root, behind the service's back (one API call each
    // would take longer than the benchmark), each with its own placement id inside the tag.
    const pool = createPool({ uri: ADMIN_URL, database: `${platform.prefix}tagging_trackers`, connectionLimit: 2 });
    defer('close MySQL pool', () => pool.end());
    const seedStarted = performance.now();
    for (let start = 1; start < PLACEMENTS; start += INSERT_BATCH) {
      const rows: unknown[][] = [];
      for (let i = start; i < Math.min(PLACEMENTS, start + INSERT_BATCH); i++) {
        const id = placementId + i;
        rows.push([
          accountId,
          retailCampaignId,
          mediaPlanId,
          id,
          `Placement ${i} 300x250`,
          `Site ${i % 50}`,
          '300x250',
          'gam',
          'rich-media',
          '{}',
          tag.tagValue.replaceAll(String(placementId), String(id)),
          1,
        ]);
      }
      await pool.query(
        `INSERT INTO tag_metadata (account_id, campaign_id, media_plan_id, placement_id, placement_name, site_name, dimension, ad_server_id, kind, options, tag_value, is_current) VALUES ?`,
        [rows],
      );
    }
    console.log(
      `seeded ${PLACEMENTS - 1} tag rows in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s; one tag is ${tag.tagValue.length} characters`,
    );

    // The baseline's rows: what the service reads, in its order, as the CSV route lays them out.
    const [stored] = await pool.query<RowDataPacket[]>(
      'SELECT site_name, placement_id, placement_name, dimension, ad_server_id, kind, tag_value FROM tag_metadata WHERE is_current = 1 ORDER BY tag_metadata_id',
    );
    const records = stored.map((r) => [r.site_name, String(r.placement_id), r.placement_name, r.dimension, r.ad_server_id, r.kind, r.tag_value] as string[]);
    if (records.length !== PLACEMENTS) throw new Error(`expected ${PLACEMENTS} current tags, found ${records.length}`);

    const busy = await machineBusyFraction();
    console.log(`machine busy before measuring: ${(busy * 100).toFixed(0)}% of all cores`);
    const url = `${platform.gatewayUrl}/v2/accounts/${accountId}/retail-campaigns/${retailCampaignId}/download-tags`;
    const servicePids = { gateway: platform.pids.gateway as number, 'tagging-trackers': platform.pids['tagging-trackers'] as number };
    const idle = Object.fromEntries(Object.entries(servicePids).map(([name, pid]) => [name, memoryOf(pid).rssMiB]));
    const bareIdle = memoryOf(process.pid).rssMiB;
    const downloads: { firstMs: number; lastMs: number; bytes: number; peak: Record<string, number> }[] = [];
    for (let run = 0; run < RUNS; run++) {
      const stop = sampleRss(servicePids);
      const begin = performance.now();
      const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
      if (response.status !== 200 || !response.body) throw new Error(`download answered ${response.status}`);
      let firstMs = 0;
      let bytes = 0;
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        if (bytes === 0) firstMs = performance.now() - begin;
        bytes += chunk.length;
      }
      downloads.push({ firstMs, lastMs: performance.now() - begin, bytes, peak: stop() });
    }
    const bare: { lastMs: number; bytes: number; peakMiB: number }[] = [];
    for (let run = 0; run < RUNS; run++) {
      const stop = sampleRss({ 'load generator': process.pid });
      const begin = performance.now();
      const { sink, bytes } = countingSink();
      const csv = stringify({
        header: true,
        columns: [...TAG_CSV_COLUMNS],
        record_delimiter: 'windows',
        cast: { string: (v: string) => (/^[=+\-@\t\r]/.test(v) ? `'${v}` : v) },
      });
      await pipeline(
        (async function* () {
          yield* records;
        })(),
        csv,
        sink,
      );
      bare.push({ lastMs: performance.now() - begin, bytes: bytes(), peakMiB: stop()['load generator'] as number });
    }

    const median = (values: number[]) => percentile(Float64Array.from(values).sort(), 0.5);
    const sizes = new Set(downloads.map((d) => d.bytes));
    if (sizes.size !== 1) throw new Error(`the downloads differ in size: ${[...sizes].join(', ')}`);
    const gatewayPeak = Math.max(...downloads.map((d) => d.peak.gateway ?? 0));
    const servicePeak = Math.max(...downloads.map((d) => d.peak['tagging-trackers'] ?? 0));
    console.log(`download: ${downloads[0]?.bytes} bytes; bare csv-stringify: ${bare[0]?.bytes} bytes`);
    console.log('                                   first byte ms   last byte ms (median of runs; min–max)   peak RSS MiB');
    console.log(
      `download through the gateway      ${median(downloads.map((d) => d.firstMs))
        .toFixed(0)
        .padStart(13)}   ${median(downloads.map((d) => d.lastMs))
        .toFixed(0)
        .padStart(
          12,
        )} (${Math.min(...downloads.map((d) => d.lastMs)).toFixed(0)}–${Math.max(...downloads.map((d) => d.lastMs)).toFixed(0)})                  gateway ${gatewayPeak.toFixed(0)} (idle ${idle.gateway?.toFixed(0)}), tagging-trackers ${servicePeak.toFixed(0)} (idle ${idle['tagging-trackers']?.toFixed(0)})`,
    );
    console.log(
      `bare csv-stringify (baseline)     ${'-'.padStart(13)}   ${median(bare.map((b) => b.lastMs))
        .toFixed(0)
        .padStart(
          12,
        )} (${Math.min(...bare.map((b) => b.lastMs)).toFixed(0)}–${Math.max(...bare.map((b) => b.lastMs)).toFixed(0)})                  load generator ${Math.max(...bare.map((b) => b.peakMiB)).toFixed(0)} (before ${bareIdle.toFixed(0)}, the rows already held in memory)`,
    );
    console.log(`ratio last byte subject/baseline: ${(median(downloads.map((d) => d.lastMs)) / median(bare.map((b) => b.lastMs))).toFixed(1)}x`);
  });
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  });
