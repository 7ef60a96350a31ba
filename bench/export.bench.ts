import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import type { TemplateLayout } from '@contracts/domain';
import { chooseLayout, creativeContentOf } from '../apps/export-renderer/src/rendering/creative-layout';
import { encodeStill, renderFrame } from '../apps/export-renderer/src/rendering/creative-renderer';
import { cpuSince, cpuSnapshot, findPidByCommand, machineBusyFraction } from './harness/cpu-time';
import { apiClient, expectJson } from './harness/http-api';
import { startObjectStore, startPlatform } from './harness/platform';
import { seedRetailerOrg } from './harness/seed';
import { settle } from './harness/settle';
import { withTeardown } from './harness/teardown';

/**
 * Creative export end to end: a png export of 2 placements x PRODUCTS products, timed from the
 * exportAssets request to COMPLETED in the status read (gateway -> content-creative -> outbox ->
 * JetStream -> export-renderer -> peers -> sharp -> zip -> object storage), as creatives per second;
 * beside the bare compositing of the same creatives (same layouts, rows and image, same concurrency)
 * in this one process, in the same run, the runs of the two sides in turns after one untimed run each.
 * Also the renderer's peak RSS (VmHWM).
 */
const PRODUCTS = Number(process.env.BENCH_EXPORT_PRODUCTS ?? 100);
/** Timed runs a side, after one untimed run each: the first export of a process pays for connections, prepared statements and JIT. */
const RUNS = Number(process.env.BENCH_EXPORT_RUNS ?? 5);
const DIMENSIONS = ['300x250', '728x90'];
/** The renderer's EXPORT_RENDER_CONCURRENCY (its default is 2), used by the baseline too. */
const CONCURRENCY = Number(process.env.BENCH_EXPORT_CONCURRENCY ?? 2);

const LAYOUT: TemplateLayout = {
  dimension: '300x250',
  backgroundColor: '#f4f1ea',
  logo: { x: 10, y: 10, w: 80, h: 20 },
  productImage: { x: 10, y: 40, w: 140, h: 140 },
  headline: { box: { x: 160, y: 50, w: 130, h: 30 }, color: '#111111', fontSize: 16, text: 'Headline' },
  price: { box: { x: 160, y: 100, w: 130, h: 30 }, color: '#c8102e', fontSize: 18, text: '$9.99' },
  callToAction: { box: { x: 160, y: 200, w: 120, h: 36 }, color: '#ffffff', backgroundColor: '#1a73e8', fontSize: 14, text: 'Shop now' },
};

const WIDE_LAYOUT: TemplateLayout = {
  dimension: '728x90',
  backgroundColor: '#f4f1ea',
  logo: { x: 640, y: 8, w: 80, h: 20 },
  productImage: { x: 8, y: 5, w: 80, h: 80 },
  headline: { box: { x: 100, y: 15, w: 300, h: 30 }, color: '#111111', fontSize: 20, text: 'Headline' },
  price: { box: { x: 100, y: 55, w: 200, h: 26 }, color: '#c8102e', fontSize: 18, text: '$9.99' },
  callToAction: { box: { x: 590, y: 40, w: 120, h: 36 }, color: '#ffffff', backgroundColor: '#1a73e8', fontSize: 14, text: 'Shop now' },
};

const peakRssMb = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

async function main(): Promise<void> {
  const creatives = PRODUCTS * DIMENSIONS.length;
  console.log(`export: png at resolution 1 of ${DIMENSIONS.length} placements x ${PRODUCTS} products = ${creatives} creatives, ${RUNS} runs each side`);
  await withTeardown(async (defer) => {
    const productPng = await sharp({ create: { width: 400, height: 400, channels: 3, background: { r: 220, g: 40, b: 40 } } })
      .png()
      .toBuffer();
    const images = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(productPng));
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    defer('stop image server', async () => void images.close());
    const imageHost = `127.0.0.1:${(images.address() as AddressInfo).port}`;

    const s3 = await startObjectStore(defer);
    const platform = await startPlatform('bexp', defer, {
      services: ['content-creative', 'asset-sources', 'templates', 'storage-library'],
      workers: ['export-renderer'],
      env: { S3_ENDPOINT: s3.endpoint, OUTBOUND_ALLOWLIST: imageHost, EXPORT_RENDER_CONCURRENCY: String(CONCURRENCY) },
    });
    const api = apiClient(platform.gatewayUrl);
    const { apiKey: token, accountId, orgId } = await seedRetailerOrg(api, 'bench-exports', DIMENSIONS);
    const call = async <T>(method: 'GET' | 'POST' | 'PATCH', path: string, json?: unknown, status = 200) =>
      expectJson<T>(await api(method, path, { token, json }), status, `${method} ${path}`);

    const { idx: channel } = await call<{ idx: number }>(
      'POST',
      `/v2/org/${orgId}/retail-media-channels`,
      { name: 'Display', adServerId: 'gam', type: 'Off-site', activationConfiguration: { tagGeneration: true, creativeGeneration: true } },
      201,
    );
    const { templateIdx } = await call<{ templateIdx: number }>(
      'POST',
      `/v2/accounts/${accountId}/retail-campaigns/retail-templates/custom`,
      {
        templateName: 'Bench',
        retailerId: 1,
        inventoryType: 'offsite',
        adFormat: 'Display Banner',
        sourceOfProductInformation: 'Retailer Product Feed',
        productSelectionMethod: 'Fixed Product Selection',
        creativeStyle: ['Static Banner'],
        category: ['Grocery'],
        templateType: ['Standard'],
        layouts: [LAYOUT, WIDE_LAYOUT],
      },
      201,
    );
    const { retailCampaignId: campaign } = await call<{ retailCampaignId: number }>(
      'POST',
      `/v2/accounts/${accountId}/retail-campaigns`,
      { campaignName: 'Bench', templateIdx },
      201,
    );
    const { mediaPlanId } = await call<{ mediaPlanId: number }>(
      'POST',
      `/v2/accounts/${accountId}/media-plans/auto`,
      { dimensions: DIMENSIONS, retailCampaignId: campaign, mediaChannelIdx: channel },
      201,
    );
    const plan = await call<{ adServers: { placements: { placementId: string }[] }[] }>('GET', `/v2/accounts/${accountId}/media-plans/${mediaPlanId}`);
    const rows = Array.from({ length: PRODUCTS }, (_, i) => ({
      sku: `SKU-${i + 1}`,
      name: `Product number ${i + 1}`,
      price: `$${i + 1}.99`,
      callToAction: 'Buy now',
      brandColor: '#203040',
      imageUrl: `http://${imageHost}/p/${i + 1}.png`,
    }));
    const { id: source } = await call<{ id: number }>(
      'POST',
      `/v2/accounts/${accountId}/asset-sources/inline`,
      { assetSourceName: 'Products', columnNames: Object.keys(rows[0]), assetKeyColumn: 'sku', data: rows },
      201,
    );
    await call('POST', `/v2/accounts/${accountId}/retail-campaigns/${campaign}/media-plans/${mediaPlanId}/content-map`, {
      contentType: 'Product',
      dataServiceId: source,
      adGroupPlacementCreativeMap: [
        {
          adGroupId: '',
          placementCreativeMap: plan.adServers.flatMap((s) => s.placements.map((p) => ({ placementId: p.placementId, content: rows.map((r) => r.sku) }))),
        },
      ],
    });
    await call('PATCH', `/v2/accounts/${accountId}/retail-campaigns/${campaign}`, { status: 'ACTIVE' });

    console.log(`machine busy before measuring: ${((await machineBusyFraction()) * 100).toFixed(0)}% of all cores`);

    // CPU from /proc beside the rates: steadier than wall time on a shared machine. The end-to-end side counts
    // every process an export touches (this one holds the polling client and the image server); the bare
    // side, this process alone.
    const BENCH = 'bench (client, images)';
    const exportPids = Object.fromEntries(
      Object.entries({
        ...platform.pids,
        's3 server': s3.pid,
        mariadbd: findPidByCommand('mariadbd'),
        'nats-server': findPidByCommand('nats-server'),
        [BENCH]: process.pid,
      }).filter((entry): entry is [string, number] => entry[1] !== undefined),
    );
    const barePids = { [BENCH]: process.pid };
    const exportCpu: Record<string, number> = {};
    const bareCpu: number[] = [];
    const exportCpuTotals: number[] = [];

    // The subject: request to COMPLETED, through every hop.
    const exportEndToEnd = async () => {
      const begin = performance.now();
      const { queueId } = await call<{ queueId: string }>('POST', `/v2/accounts/${accountId}/retail-campaigns/${campaign}/exportAssets`, {
        assetExportType: 'png',
        resolution: 1,
      });
      for (;;) {
        const entries = await call<{ resolutionsResponse: { status: string; queueId: string; statusMessage: string }[] }[]>(
          'GET',
          `/v2/accounts/${accountId}/retail-campaigns/${campaign}/exportAssetStatus?assetExportType=png`,
        );
        const line = entries[0]?.resolutionsResponse.find((r) => r.queueId === queueId);
        if (line?.status === 'FAILED') throw new Error(`export failed: ${line.statusMessage}`);
        if (line?.status === 'COMPLETED') {
          if (!line.statusMessage.startsWith(`Rendered ${creatives} of ${creatives} creatives.`)) throw new Error(`unexpected: ${line.statusMessage}`);
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return creatives / ((performance.now() - begin) / 1000);
    };

    // The baseline: the same creatives composited and encoded in this process, image already in memory.
    const compositeBare = async () => {
      const work = DIMENSIONS.flatMap((dimension) => rows.map((row) => ({ dimension, row })));
      const begin = performance.now();
      let next = 0;
      const lane = async () => {
        while (next < work.length) {
          const { dimension, row } = work[next++];
          const frame = await renderFrame(chooseLayout([LAYOUT, WIDE_LAYOUT], dimension, 1).layout, creativeContentOf(row, row.sku), productPng);
          await encodeStill(frame, 'png');
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, lane));
      return creatives / ((performance.now() - begin) / 1000);
    };

    // One untimed run a side, then the timed runs taken in turns (export, bare, export, ...): on a shared
    // machine whose speed drifts over a minute, both sides see the same drift. Each timed run starts after
    // a pause in which the work an export leaves behind it (the serving snapshot compile, 500 ms after it
    // completed) is done, so it is charged to neither side.
    await exportEndToEnd();
    await compositeBare();
    const subject: number[] = [];
    const baseline: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      await settle();
      let before = cpuSnapshot(exportPids);
      subject.push(await exportEndToEnd());
      const spent = cpuSince(exportPids, before);
      for (const [name, ms] of Object.entries(spent)) exportCpu[name] = (exportCpu[name] ?? 0) + ms;
      exportCpuTotals.push(Object.values(spent).reduce((a, b) => a + b, 0));
      await settle();
      before = cpuSnapshot(barePids);
      baseline.push(await compositeBare());
      bareCpu.push(cpuSince(barePids, before)[BENCH]);
    }

    const best = (values: number[]) => Math.max(...values);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    console.log('');
    console.log('|                                   | creatives/s (median) | best  | runs |');
    console.log('| --------------------------------- | -------------------- | ----- | ---- |');
    console.log(
      `| end to end (request to COMPLETED)  | ${median(subject).toFixed(1).padStart(20)} | ${best(subject).toFixed(1).padStart(5)} | ${subject.map((v) => v.toFixed(1)).join(', ')} |`,
    );
    console.log(
      `| bare sharp compositing, in process | ${median(baseline).toFixed(1).padStart(20)} | ${best(baseline).toFixed(1).padStart(5)} | ${baseline.map((v) => v.toFixed(1)).join(', ')} |`,
    );
    console.log(`ratio end to end / bare (medians): ${(median(subject) / median(baseline)).toFixed(2)} (goal at least 0.7)`);
    const perCreative = (ms: number) => (ms / creatives).toFixed(2);
    console.log(
      `CPU per creative (ms, median of runs): end to end ${perCreative(median(exportCpuTotals))} over every process, bare ${perCreative(median(bareCpu))}; ` +
        `CPU ratio bare / end to end ${(median(bareCpu) / median(exportCpuTotals)).toFixed(2)}`,
    );
    console.log(
      `  end to end by process (ms per creative, all runs): ${Object.entries(exportCpu)
        .sort(([, a], [, b]) => b - a)
        .map(([name, ms]) => `${name} ${perCreative(ms / RUNS)}`)
        .join(', ')}`,
    );
    console.log(
      `export-renderer peak RSS (VmHWM): ${peakRssMb(platform.pids['export-renderer']).toFixed(0)} MB; this process: ${peakRssMb(process.pid).toFixed(0)} MB`,
    );
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
