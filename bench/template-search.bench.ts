import { performance } from 'node:perf_hooks';
import { createPool, type Pool, type RowDataPacket } from 'mysql2/promise';
import {
  TEMPLATE_CREATIVE_STYLES,
  TEMPLATE_INVENTORY_TYPES,
  TEMPLATE_PRODUCT_INFORMATION_SOURCES,
  TEMPLATE_PRODUCT_SELECTION_METHODS,
  TEMPLATE_TYPES,
} from '@contracts/domain';
import type { SqlValue } from '@platform/mysql';
import { searchCountSql, searchPageSql } from '../apps/templates/src/templates/template.search-sql';
import { findPidByCommand, machineBusyFraction } from './harness/cpu-time';
import { apiClient, expectJson } from './harness/http-api';
import { measure } from './harness/measure';
import { measureLoops } from './harness/measure-loops';
import { percentile } from './harness/percentiles';
import { startObjectStore, startPlatform } from './harness/platform';
import { printComparison } from './harness/print-comparison';
import { seedRetailerOrg } from './harness/seed';
import { loadSettingsFromEnv } from './harness/settings';
import { withTeardown } from './harness/teardown';

/**
 * Retail template search with three filters over a catalog of 100,000 templates, through gateway ->
 * gRPC -> templates -> MariaDB, beside the very statements the templates repository prepares for it
 * (page and count, imported from the service) driven straight at MariaDB as prepared statements from
 * this process at the same concurrency.
 */
const CATALOG_SIZE = 100_000;
const PAGE = 25;
const ORG_ID = 'bench-templates';
const BUSY_WARNING = 0.15;
/** Rows per INSERT: an assets row carries layouts of a few KB, and a statement must stay under max_allowed_packet (16 MiB). */
const TEMPLATE_BATCH = 1_000;
const TAG_BATCH = 5_000;
const ADMIN_URL = process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';

/** A search page without layouts must stay under this (its thumbnails are URLs). */
const PAGE_BYTES_MAX = 20_000;

/** The filter measured: one scalar column and two tag kinds, each matching a minority of the catalog. */
const FILTERS = { inventoryType: 'onsite', creativeStyle: ['Video'], category: ['Beauty'] };

const RETAILER_IDS = Array.from({ length: 40 }, (_, i) => 101 + i);
/** The shipped catalog's categories and more, so one category is a few percent of the catalog, as in a real one. */
const CATEGORIES = [
  ...['Grocery', 'Beauty', 'Electronics', 'Home & Garden', 'Pets', 'Baby', 'Apparel', 'Health'],
  ...['Toys', 'Sports', 'Automotive', 'Books', 'Office', 'Garden Tools', 'Kitchen', 'Beverages'],
  ...['Snacks', 'Frozen', 'Jewellery', 'Footwear', 'Outdoor', 'Music', 'Gaming', 'Travel'],
];
/** Share of the catalog that is some account's Custom template (invisible to every other account). */
const CUSTOM_SHARE = 0.1;
/** Accounts owning Custom templates; the benchmark's own account owns a slice of them too. */
const OTHER_ACCOUNTS = 200;
/** Share of the catalog the benchmark account bookmarked, so is_bookmarked is sometimes true. */
const BOOKMARK_SHARE = 0.01;

/** Deterministic, so the catalog (and so the captured answer) is the same in every run. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One or, a third of the time, two distinct values. */
function someOf<T>(values: readonly T[], random: () => number): T[] {
  const first = values[Math.floor(random() * values.length)] as T;
  if (random() >= 1 / 3) return [first];
  const second = values[Math.floor(random() * values.length)] as T;
  return second === first ? [first] : [first, second];
}

interface FormatShape {
  adFormat: string;
  dimensions: string;
  layouts: string;
  thumbnailKey: string;
}

/**
 * Seeds the catalog as root, behind the service's back (the API creates one template per request,
 * which would take longer than the benchmark). Each ad format reuses the dimensions, layouts and
 * thumbnail (its key, so its stored object) of a shipped System template, so rows and responses have the real sizes.
 */
export async function seedCatalog(pool: Pool, accountId: number): Promise<{ rows: number; tags: number; bookmarks: number }> {
  const [shipped] = await pool.query<RowDataPacket[]>(
    `SELECT t.ad_format, t.dimensions, t.thumbnail_key, a.layouts, MAX(t.template_idx) OVER () AS last_idx, COUNT(*) OVER () AS shipped
       FROM templates t JOIN template_assets a ON a.template_idx = t.template_idx ORDER BY t.template_idx`,
  );
  if (shipped.length === 0) throw new Error('the templates service seeded no System catalog to copy shapes from');
  const formats = [...new Map(shipped.map((row) => [String(row.ad_format), row])).values()].map((row): FormatShape => ({
    adFormat: String(row.ad_format),
    dimensions: String(row.dimensions),
    layouts: String(row.layouts),
    thumbnailKey: String(row.thumbnail_key),
  }));
  const firstIdx = Number(shipped[0].last_idx) + 1;
  const toSeed = CATALOG_SIZE - Number(shipped[0].shipped);
  const random = mulberry32(20261123);
  // Fixed timestamps: the response carries them, and the captured body must not depend on when the seed ran.
  const stamp = new Date('2026-11-01T00:00:00.000Z');

  let tags = 0;
  let bookmarks = 0;
  for (let start = 0; start < toSeed; start += TEMPLATE_BATCH) {
    const templates: unknown[][] = [];
    const assets: unknown[][] = [];
    const tagRows: unknown[][] = [];
    const bookmarkRows: unknown[][] = [];
    for (let i = start; i < Math.min(toSeed, start + TEMPLATE_BATCH); i++) {
      const idx = firstIdx + i;
      const format = formats[Math.floor(random() * formats.length)] as FormatShape;
      const custom = random() < CUSTOM_SHARE;
      // One Custom template in ten belongs to the benchmark account, the rest to others it must not see.
      const owner = custom ? (random() < 0.1 ? accountId : 900_000 + Math.floor(random() * OTHER_ACCOUNTS)) : null;
      const styles = someOf(TEMPLATE_CREATIVE_STYLES, random);
      const categories = someOf(CATEGORIES, random);
      const types = someOf(TEMPLATE_TYPES, random);
      const retailerId = RETAILER_IDS[Math.floor(random() * RETAILER_IDS.length)] as number;
      templates.push([
        idx,
        owner,
        custom ? 'Custom' : 'System',
        `Retailer ${retailerId} ${styles[0]} ${format.adFormat} ${idx}`,
        retailerId,
        TEMPLATE_INVENTORY_TYPES[Math.floor(random() * TEMPLATE_INVENTORY_TYPES.length)],
        format.adFormat,
        TEMPLATE_PRODUCT_INFORMATION_SOURCES[Math.floor(random() * TEMPLATE_PRODUCT_INFORMATION_SOURCES.length)],
        TEMPLATE_PRODUCT_SELECTION_METHODS[Math.floor(random() * TEMPLATE_PRODUCT_SELECTION_METHODS.length)],
        JSON.stringify(styles),
        JSON.stringify(categories),
        JSON.stringify(types),
        format.dimensions,
        format.thumbnailKey,
        stamp,
        stamp,
      ]);
      assets.push([idx, format.layouts]);
      for (const value of styles) tagRows.push([idx, 'creativeStyle', value]);
      for (const value of categories) tagRows.push([idx, 'category', value]);
      for (const value of types) tagRows.push([idx, 'templateType', value]);
      if ((owner === null || owner === accountId) && random() < BOOKMARK_SHARE) bookmarkRows.push([accountId, idx, stamp]);
    }
    await pool.query(
      `INSERT INTO templates (template_idx, account_id, ownership, template_name, retailer_id, inventory_type, ad_format,
         source_of_product_information, product_selection_method, creative_styles, categories, template_types, dimensions,
         thumbnail_key, created_at, updated_at) VALUES ?`,
      [templates],
    );
    await pool.query('INSERT INTO template_assets (template_idx, layouts) VALUES ?', [assets]);
    for (let at = 0; at < tagRows.length; at += TAG_BATCH)
      await pool.query('INSERT INTO template_tags (template_idx, kind, value) VALUES ?', [tagRows.slice(at, at + TAG_BATCH)]);
    if (bookmarkRows.length > 0) await pool.query('INSERT INTO template_bookmarks (account_id, template_idx, created_at) VALUES ?', [bookmarkRows]);
    tags += tagRows.length;
    bookmarks += bookmarkRows.length;
  }
  // Fresh statistics, so the service and the baseline get the same plan rather than whatever the background recalculation has reached.
  await pool.query('ANALYZE TABLE templates, template_assets, template_tags, template_bookmarks');
  return { rows: toSeed, tags, bookmarks };
}

interface SearchStatements {
  page: { sql: string; values: SqlValue[] };
  count: { sql: string; values: SqlValue[] };
}

/** The very statements (text and bindings) the templates repository prepares for FILTERS. */
function searchStatements(accountId: number): SearchStatements {
  return { page: searchPageSql(accountId, FILTERS, { offset: 0, limit: PAGE }, false), count: searchCountSql(accountId, FILTERS) };
}

interface SearchAnswer {
  ids: number[];
  total?: number;
}

/**
 * Both statements at once on two pool connections, as the service runs them for a search it never
 * counted; or the page alone, as it runs once the count is cached for the catalog's version.
 */
async function searchDirect(pool: Pool, statements: SearchStatements, withCount: boolean): Promise<SearchAnswer> {
  const [[rows], counted] = await Promise.all([
    pool.execute<RowDataPacket[]>(statements.page.sql, statements.page.values),
    withCount ? pool.execute<RowDataPacket[]>(statements.count.sql, statements.count.values).then(([found]) => Number(found[0]?.total ?? 0)) : undefined,
  ]);
  return { ids: rows.map((row) => Number(row.template_idx)), total: counted };
}

/** A page-only answer carries no total, so only its ids are compared. */
const sameAnswer = (a: SearchAnswer, b: SearchAnswer) =>
  (a.total === undefined || b.total === undefined || a.total === b.total) && a.ids.join(',') === b.ids.join(',');

interface SearchResponse {
  count: number;
  templates: { templateIdx: number; thumbnailUrl: string }[];
}

async function main(): Promise<void> {
  const settings = loadSettingsFromEnv();
  console.log(
    `template search: ${CATALOG_SIZE} templates, filter ${JSON.stringify(FILTERS)}, limit ${PAGE}; ${settings.connections} connections, ${settings.durationSec} s measured after ${settings.warmupSec} s warm-up`,
  );

  await withTeardown(async (defer) => {
    // Thumbnails live in the object store; the service draws the shipped catalog's into it at start.
    const s3 = await startObjectStore(defer);
    // BENCH_RESPONSE_CACHE=off turns the gateway's response cache off: every search then reaches the service.
    const cacheOff = process.env.BENCH_RESPONSE_CACHE === 'off';
    console.log(`gateway response cache: ${cacheOff ? 'off (every search reaches the templates service)' : 'on (a repeated search is answered from memory)'}`);
    const platform = await startPlatform('bench', defer, {
      templates: true,
      env: { S3_ENDPOINT: s3.endpoint, ...(cacheOff ? { RESPONSE_CACHE_TTL_MS: '0' } : {}) },
    });
    const api = apiClient(platform.gatewayUrl);
    const { apiKey, accountId } = await seedRetailerOrg(api, ORG_ID);

    // As many connections as loops, so the baseline is limited by MariaDB rather than by waiting for the pool.
    const pool = createPool({
      uri: ADMIN_URL,
      database: `${platform.prefix}templates`,
      connectionLimit: settings.connections,
      // The services' connection settings: UTC, exact BIGINTs, JSON columns as their text (the seed copies them verbatim).
      timezone: 'Z',
      supportBigNumbers: true,
      jsonStrings: true,
    });
    defer('close MySQL pool', () => pool.end());

    const seedStarted = performance.now();
    const seeded = await seedCatalog(pool, accountId);
    const seedSec = (performance.now() - seedStarted) / 1000;
    console.log(
      `seeded ${seeded.rows} templates, ${seeded.tags} tag rows and ${seeded.bookmarks} bookmarks in ${seedSec.toFixed(1)} s (${(seeded.rows / seedSec).toFixed(0)} templates/s, ANALYZE included)`,
    );

    const searchPath = `/v2/accounts/${accountId}/retail-campaigns/retail-templates?offset=0&limit=${PAGE}`;
    const body = JSON.stringify(FILTERS);
    const captured = await fetch(`${platform.gatewayUrl}${searchPath}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body,
    });
    const capturedBody = Buffer.from(await captured.arrayBuffer());
    const answer = expectJson<SearchResponse>(
      { status: captured.status, contentType: captured.headers.get('content-type') ?? '', body: capturedBody },
      200,
      'search',
    );
    const gatewayAnswer: SearchAnswer = { ids: answer.templates.map((t) => t.templateIdx), total: answer.count };
    if (gatewayAnswer.ids.length !== PAGE) throw new Error(`expected a full page of ${PAGE}, got ${gatewayAnswer.ids.length} of ${gatewayAnswer.total}`);

    // The baseline's statements must find what the service found, or it measures a different query.
    const statements = searchStatements(accountId);
    const directAnswer = await searchDirect(pool, statements, true);
    if (!sameAnswer(directAnswer, gatewayAnswer)) {
      throw new Error(`direct SQL answered ${JSON.stringify(directAnswer)}, the gateway ${JSON.stringify(gatewayAnswer)}`);
    }
    console.log(`answer: ${answer.count} matches (${((100 * answer.count) / CATALOG_SIZE).toFixed(2)}% of the catalog); response ${capturedBody.length} bytes`);
    if (capturedBody.length > PAGE_BYTES_MAX) throw new Error(`a page of ${PAGE} is ${capturedBody.length} bytes, above ${PAGE_BYTES_MAX}`);
    // Every thumbnail the page names must be served, or the small page hides a broken one.
    for (const url of new Set(answer.templates.map((t) => t.thumbnailUrl))) {
      const thumbnail = await fetch(url);
      const bytes = (await thumbnail.arrayBuffer()).byteLength;
      if (thumbnail.status !== 200 || thumbnail.headers.get('content-type') !== 'image/png') throw new Error(`${url} answered ${thumbnail.status}`);
      console.log(`thumbnail ${url.slice(-16)}: ${bytes} bytes, ${thumbnail.headers.get('cache-control')}`);
    }
    const [plan] = await pool.query<RowDataPacket[]>(`EXPLAIN ${statements.count.sql}`, statements.count.values);
    console.log(`count plan: ${plan.map((row) => `${String(row.table)}:${String(row.type)}/${String(row.key)} rows=${String(row.rows)}`).join(', ')}`);

    // Each statement alone on an idle server: how much of a search's latency is the database's own work.
    for (const [label, statement] of Object.entries(statements)) {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const begin = performance.now();
        await pool.execute(statement.sql, statement.values);
        times.push(performance.now() - begin);
      }
      console.log(`${label} statement alone: median ${percentile(Float64Array.from(times).sort(), 0.5).toFixed(1)} ms of 5`);
    }
    const [pagePlan] = await pool.query<RowDataPacket[]>(`EXPLAIN ${statements.page.sql}`, statements.page.values);
    console.log(`page plan: ${pagePlan.map((row) => `${String(row.table)}:${String(row.type)}/${String(row.key)} rows=${String(row.rows)}`).join(', ')}`);

    const loadGenerator = { 'load generator': process.pid };
    const mariadbd = findPidByCommand('mariadbd');
    const natsServer = findPidByCommand('nats-server');
    const busy = await machineBusyFraction();
    console.log(`machine busy before measuring: ${(busy * 100).toFixed(0)}% of all cores`);
    if (busy > BUSY_WARNING) console.warn('note: something else is using the CPU; both figures will be low and noisy');

    const directCpu = { ...(mariadbd ? { mariadbd } : {}), ...loadGenerator };
    const baseline = await measureLoops(
      `direct SQL, page + count, pool of ${settings.connections} (baseline)`,
      settings,
      async () => sameAnswer(await searchDirect(pool, statements, true), gatewayAnswer),
      directCpu,
    );
    // The service counts a search once per catalog version; every later request of the same search
    // (the loop below repeats one) reads only its page. This is the floor for that case.
    const pageOnly = await measureLoops(
      `direct SQL, page only, pool of ${settings.connections} (baseline)`,
      settings,
      async () => sameAnswer(await searchDirect(pool, statements, false), gatewayAnswer),
      directCpu,
    );
    const subject = await measure({
      ...settings,
      name: 'gateway search (subject)',
      url: `${platform.gatewayUrl}${searchPath}`,
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body,
      // The catalog is fixed for the run, so every response must be these very bytes.
      expectBody: capturedBody.toString(),
      cpuOf: { ...platform.pids, ...(mariadbd ? { mariadbd } : {}), ...(natsServer ? { 'nats-server': natsServer } : {}), ...loadGenerator },
    });
    printComparison(subject, baseline);
    printComparison(subject, pageOnly);
  });
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  });
