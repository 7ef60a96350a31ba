import { connect } from 'nats';
import { SERVING_SNAPSHOT_BUCKET, SERVING_SNAPSHOT_VERSION, servingSnapshotKey, type Segment, type ServingCampaign, type ServingItem } from '@contracts/domain';
import { naming, openKeyValue, putLargeValue } from '@platform/nats';
import { deletePrefixedStreams, freePort, startProcess, uniquePrefix } from '@platform/testing';
import { machineBusyFraction } from './harness/cpu-time';
import { measure, type Measurement } from './harness/measure';
import { printComparison } from './harness/print-comparison';
import { loadSettingsFromEnv } from './harness/settings';
import { startStaticResponse } from './harness/static-response';
import { withTeardown } from './harness/teardown';

/**
 * Decision + serve of a rich-media script tag by the ad server, from its in-memory snapshot of a campaign
 * with 20 audience segments over three data signals and 5,000 products, beside a bare node:http server
 * answering a fixed body of the same size, in the same run: once as fast as each answers (requests/s,
 * CPU per request), once at a fixed 2,000 requests/s (the latency an ad server is judged by).
 */
const PRODUCTS = 5_000;
const SEGMENTS = 20;
const RATE = Number(process.env.BENCH_SERVE_RATE ?? 2_000);
const COUNTRIES = ['US', 'CA', 'GB', 'DE', 'FR', 'ES', 'IT', 'NL', 'SE', 'PL'];

function campaign(): ServingCampaign {
  const items: ServingItem[] = Array.from({ length: PRODUCTS }, (_, i) => ({
    contentValue: `SKU-${i}`,
    name: `Product ${i}`,
    imageUrl: `https://img.example/${i}.png`,
    price: `$${(i % 97) + 0.99}`,
    landingUrl: `https://shop.example/p/${i}`,
    callToAction: 'Shop now',
    exports: i % 2 === 0 ? { png: { path: `exports/bench/files/${i}.png`, width: 300, height: 250 } } : {},
  }));
  // Each segment: a country set, a temperature band and a device type; its masters are ten products.
  const segments: Segment[] = Array.from({ length: SEGMENTS }, (_, s) => ({
    name: `segment-${s}`,
    creativeMasters: Array.from({ length: 10 }, (_, k) => `SKU-${s * 10 + k}`),
    condition: {
      operator: 'and',
      expressions: [
        { dataSignalServiceId: 1, dataSignalPropertyId: 'country', operator: 'IN', value: [COUNTRIES[s % 10], COUNTRIES[(s + 3) % 10]] },
        { dataSignalServiceId: 3, dataSignalPropertyId: 'temperature', operator: 'BETWEEN', value: [s - 5, s + 5] },
        { dataSignalServiceId: 4, dataSignalPropertyId: 'deviceType', operator: 'EQUALS', value: s % 2 === 0 ? 'mobile' : 'desktop' },
      ],
    },
  }));
  return {
    version: SERVING_SNAPSHOT_VERSION,
    compiledAt: new Date().toISOString(),
    accountId: 1,
    retailCampaignId: 1,
    campaignName: 'Bench',
    status: 'ACTIVE',
    defaultUrl: null,
    placements: {
      '1': {
        placementId: 1,
        mediaPlanId: 1,
        name: '300x250',
        width: 300,
        height: 250,
        adServerKind: 'display',
        items,
        trackers: { bannerImpressionTrackers: ['https://imp.example/p?cb=%%CACHEBUSTER%%'], primaryClickTracker: ['https://trk.example/c?cb=[CACHEBUSTING]'] },
      },
    },
    dynamicCampaigns: {
      '1': { campaignId: 1, defaultUrl: 'https://shop.example/', graph: { defaultCreativeMaster: 'SKU-0', rulePriority: 'EQUAL_ROTATION', segments } },
    },
    signals: {
      'geography.country': { dataSignalId: 1, propertyId: 'country', valueType: 'string' },
      'weather.temperature': { dataSignalId: 3, propertyId: 'temperature', valueType: 'number' },
      'device.devicetype': { dataSignalId: 4, propertyId: 'deviceType', valueType: 'string' },
    },
  };
}

void withTeardown(async (defer) => {
  const load = loadSettingsFromEnv();
  const prefix = uniquePrefix('benchserve');
  const nats = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
  defer('nats', async () => {
    await nats.close();
    await deletePrefixedStreams(prefix);
  });
  const kv = await openKeyValue(nats, naming(prefix), SERVING_SNAPSHOT_BUCKET);
  await putLargeValue(kv, servingSnapshotKey(1), JSON.stringify(campaign()));

  const port = await freePort();
  const adServer = await startProcess({
    name: 'ad-server',
    entry: 'apps/ad-server/src/main.ts',
    env: { NATS_PREFIX: prefix, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: 'https://ads.example', LOG_LEVEL: 'info' },
    ready: /ad-server ready/,
  });
  defer('ad-server', () => adServer.stop());
  // Segments 12 (DE, 7..17 C, mobile) and others match: EQUAL_ROTATION spreads over every matching segment.
  const url = `http://127.0.0.1:${port}/serve/v1/tags/rich-media.js?plc=1&mp=1&cmp=1&tm=1&as=gam&dc=1&ds_geography.country=DE&ds_weather.temperature=12&ds_device.deviceType=mobile&cb=12345678&adchoices=1`;
  const sample = await (await fetch(url)).text();
  if (!sample.includes('Product ')) throw new Error(`the ad server served no ad: ${sample.slice(0, 200)}`);
  const bare = await startStaticResponse({ body: Buffer.from(sample), contentType: 'application/javascript; charset=utf-8', path: '/' });
  defer('bare server', () => bare.stop());

  const busy = await machineBusyFraction();
  console.log(
    `ad serving: ${PRODUCTS} products, ${SEGMENTS} segments; body ${sample.length} bytes; machine busy before measuring: ${Math.round(busy * 100)}% of all cores`,
  );
  const run = (name: string, target: string, pid: number | undefined, overallRate?: number): Promise<Measurement> =>
    measure({ ...load, name, url: target, cpuOf: pid ? { [name]: pid } : {}, overallRate });

  console.log('\nas fast as each answers:');
  const subject = await run('ad-server', url, adServer.child.pid);
  const baseline = await run('bare', bare.url, bare.pid);
  printComparison(subject, baseline);

  console.log(`\nat ${RATE} requests/s:`);
  const subjectAtRate = await run('ad-server', url, adServer.child.pid, RATE);
  const baselineAtRate = await run('bare', bare.url, bare.pid, RATE);
  printComparison(subjectAtRate, baselineAtRate);
  const cpuRatio = subject.cpuMsPerRequest['ad-server'] / baseline.cpuMsPerRequest.bare;
  console.log(
    `\ngoal: p99 under 5 ms at ${RATE} req/s: ${subjectAtRate.p99Ms.toFixed(2)} ms (${subjectAtRate.requestsPerSec.toFixed(0)} req/s achieved) -> ${subjectAtRate.p99Ms < 5 ? 'met' : 'NOT met'}; ` +
      `CPU per request within 5x of the bare server: ${cpuRatio.toFixed(2)}x -> ${cpuRatio <= 5 ? 'met' : 'NOT met'}`,
  );
});
