import { performance } from 'node:perf_hooks';
import { freePort, startProcess } from '@platform/testing';
import { createPool, type Pool, type RowDataPacket } from 'mysql2/promise';
import { findPidByCommand, machineBusyFraction } from './harness/cpu-time';
import { apiClient, expectJson } from './harness/http-api';
import { measure } from './harness/measure';
import { measureLoops } from './harness/measure-loops';
import { percentile } from './harness/percentiles';
import { startPlatform } from './harness/platform';
import { printComparison } from './harness/print-comparison';
import { seedRetailerOrg } from './harness/seed';
import { loadSettingsFromEnv } from './harness/settings';
import { withTeardown } from './harness/teardown';

/**
 * A page deep inside an inline asset source of 100,000 rows, through gateway -> gRPC ->
 * asset-sources -> MariaDB, beside the very statements the service runs for it (the source row,
 * then the page as a range of row ordinals) driven straight at MariaDB at the same concurrency.
 * The same page read with LIMIT/OFFSET, as a table without ordinals would have to, is timed alone
 * to show what the ordinals save.
 */
const ROWS = 100_000;
const PAGE = 25;
const OFFSET = 87_500;
const ORG_ID = 'bench-asset-sources';
const BUSY_WARNING = 0.15;
const INSERT_BATCH = 5_000;
const ADMIN_URL = process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const COLUMNS = ['sku', 'name', 'image', 'price', 'weight'];

const row = (i: number) => ({
  sku: `SKU${String(i).padStart(6, '0')}`,
  name: `Product ${i}`,
  image: `products/p${i}.png`,
  price: `${(i % 500) + 0.99}`,
  weight: (i % 5) + 1,
});

// The statements of AssetSourceRepository.get and .readRows, as the service sends them.
const SOURCE_SQL = 'SELECT * FROM asset_sources WHERE asset_source_id = ? AND account_id = ?';
const PAGE_SQL = 'SELECT row_json FROM asset_source_rows WHERE asset_source_id = ? AND ordinal >= ? AND ordinal < ? ORDER BY ordinal';
const OFFSET_SQL = 'SELECT row_json FROM asset_source_rows WHERE asset_source_id = ? ORDER BY ordinal LIMIT ? OFFSET ?';

/** The rows are written as root behind the service's back: one API request cannot carry 100,000 rows. */
async function seedRows(pool: Pool, assetSourceId: number): Promise<void> {
  await pool.query('DELETE FROM asset_source_rows WHERE asset_source_id = ?', [assetSourceId]);
  for (let start = 0; start < ROWS; start += INSERT_BATCH) {
    const values: unknown[][] = [];
    for (let i = start; i < Math.min(ROWS, start + INSERT_BATCH); i++) {
      const r = row(i);
      values.push([assetSourceId, i, r.sku, JSON.stringify(r)]);
    }
    await pool.query('INSERT INTO asset_source_rows (asset_source_id, ordinal, key_value, row_json) VALUES ?', [values]);
  }
  await pool.query('UPDATE asset_sources SET row_count = ? WHERE asset_source_id = ?', [ROWS, assetSourceId]);
  await pool.query('ANALYZE TABLE asset_source_rows');
}

async function readDirect(pool: Pool, accountId: number, assetSourceId: number): Promise<string[]> {
  const [sources] = await pool.execute<RowDataPacket[]>(SOURCE_SQL, [assetSourceId, accountId]);
  if (sources.length !== 1) throw new Error('source not found');
  const [rows] = await pool.execute<RowDataPacket[]>(PAGE_SQL, [assetSourceId, OFFSET, OFFSET + PAGE]);
  return rows.map((r) => String(r.row_json));
}

async function medianAlone(pool: Pool, sql: string, values: unknown[]): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const begin = performance.now();
    await pool.query(sql, values);
    times.push(performance.now() - begin);
  }
  return percentile(Float64Array.from(times).sort(), 0.5);
}

async function main(): Promise<void> {
  const settings = loadSettingsFromEnv();
  console.log(
    `inline source page: ${ROWS} rows, offset ${OFFSET}, limit ${PAGE}; ${settings.connections} connections, ${settings.durationSec} s measured after ${settings.warmupSec} s warm-up`,
  );

  await withTeardown(async (defer) => {
    // The gateway inherits this address; asset-sources starts once the platform's schema prefix is known.
    const assetSourcesPort = await freePort();
    process.env.ASSET_SOURCES_ADDR = `127.0.0.1:${assetSourcesPort}`;
    const platform = await startPlatform('bench', defer, {});
    const assetSources = await startProcess({
      name: 'asset-sources',
      entry: 'apps/asset-sources/src/main.ts',
      env: {
        MYSQL_SCHEMA_PREFIX: platform.prefix,
        NATS_PREFIX: platform.prefix,
        LOG_LEVEL: 'info',
        GRPC_PORT: String(assetSourcesPort),
        RECOMMENDATION_SWEEP_MS: '0',
      },
      ready: /asset-sources ready/,
    });
    defer('stop asset-sources', () => assetSources.stop());

    const api = apiClient(platform.gatewayUrl);
    const { apiKey, accountId } = await seedRetailerOrg(api, ORG_ID);
    const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const created = await fetch(`${platform.gatewayUrl}/v2/accounts/${accountId}/asset-sources/inline`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ assetSourceName: 'Bench catalogue', columnNames: COLUMNS, assetKeyColumn: 'sku', rotationWeightColumn: 'weight', data: [row(0)] }),
    });
    const { id } = expectJson<{ id: number }>(
      { status: created.status, contentType: created.headers.get('content-type') ?? '', body: Buffer.from(await created.arrayBuffer()) },
      201,
      'create inline source',
    );

    const pool = createPool({
      uri: ADMIN_URL,
      database: `${platform.prefix}asset_sources`,
      connectionLimit: settings.connections,
      timezone: 'Z',
      supportBigNumbers: true,
    });
    defer('close MySQL pool', () => pool.end());
    const seedStarted = performance.now();
    await seedRows(pool, id);
    console.log(`seeded ${ROWS} rows in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

    const dataPath = `/v2/accounts/${accountId}/asset-sources/${id}/data?offset=${OFFSET}&limit=${PAGE}`;
    const captured = await fetch(`${platform.gatewayUrl}${dataPath}`, { headers: auth });
    const capturedBody = Buffer.from(await captured.arrayBuffer());
    const answer = expectJson<{ data: { sku: string }[]; rowCount: number }>(
      { status: captured.status, contentType: captured.headers.get('content-type') ?? '', body: capturedBody },
      200,
      'data read',
    );
    const expected = await readDirect(pool, accountId, id);
    const expectedSkus = expected.map((text) => (JSON.parse(text) as { sku: string }).sku);
    if (answer.data.map((r) => r.sku).join(',') !== expectedSkus.join(',') || expectedSkus[0] !== row(OFFSET).sku || answer.rowCount !== ROWS)
      throw new Error(`the gateway answered ${answer.data.length} rows from ${answer.data[0]?.sku}, direct SQL ${expectedSkus.length} from ${expectedSkus[0]}`);
    console.log(`answer: rows ${OFFSET} to ${OFFSET + PAGE - 1} of ${answer.rowCount}; response ${capturedBody.length} bytes`);

    const [plan] = await pool.query<RowDataPacket[]>(`EXPLAIN ${PAGE_SQL}`, [id, OFFSET, OFFSET + PAGE]);
    console.log(`page plan: ${plan.map((r) => `${String(r.type)}/${String(r.key)} rows=${String(r.rows)}`).join(', ')}`);
    console.log(`page by ordinal range alone: median ${(await medianAlone(pool, PAGE_SQL, [id, OFFSET, OFFSET + PAGE])).toFixed(2)} ms of 7`);
    console.log(`same page by LIMIT/OFFSET alone: median ${(await medianAlone(pool, OFFSET_SQL, [id, PAGE, OFFSET])).toFixed(2)} ms of 7`);

    const loadGenerator = { 'load generator': process.pid };
    const mariadbd = findPidByCommand('mariadbd');
    const natsServer = findPidByCommand('nats-server');
    const busy = await machineBusyFraction();
    console.log(`machine busy before measuring: ${(busy * 100).toFixed(0)}% of all cores`);
    if (busy > BUSY_WARNING) console.warn('note: something else is using the CPU; both figures will be low and noisy');

    const baseline = await measureLoops(
      `direct SQL, source row + page, pool of ${settings.connections} (baseline)`,
      settings,
      async () => (await readDirect(pool, accountId, id)).join(',') === expected.join(','),
      { ...(mariadbd ? { mariadbd } : {}), ...loadGenerator },
    );
    const subject = await measure({
      ...settings,
      name: 'gateway data read (subject)',
      url: `${platform.gatewayUrl}${dataPath}`,
      headers: auth,
      // Nothing writes during the run, so every response must be these very bytes.
      expectBody: capturedBody.toString(),
      cpuOf: {
        ...platform.pids,
        'asset-sources': assetSources.child.pid as number,
        ...(mariadbd ? { mariadbd } : {}),
        ...(natsServer ? { 'nats-server': natsServer } : {}),
        ...loadGenerator,
      },
    });
    printComparison(subject, baseline);
  });
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  });
