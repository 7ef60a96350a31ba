import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { Browser, chromium } from 'playwright-core';
import sharp from 'sharp';
import { validateXML } from 'xmllint-wasm';
import { CHROMIUM, HEADLESS_CHROMIUM_ARGS, requireTool } from '@platform/testing';
import { admin, E2eSystem, Http, httpClient, startE2eSystem } from './e2e-system';

jest.setTimeout(300_000);

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');
/** The IAB VAST 4.2 schema the ad server's documents are held to (kept beside its VAST builder). */
const VAST_XSD = readFileSync(resolve(__dirname, '../../../ad-server/src/vast/vast_4.2.xsd'), 'utf8');

interface DeliveryRow {
  impressions: number;
  clicks: number;
  [key: string]: unknown;
}

/** Until `done` holds for what `read` answers, or 60 s. */
async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('creative delivery: a generated tag in a browser page, served, counted and clicked (gateway -> services -> serving snapshot -> ad-server)', () => {
  let system: E2eSystem;
  let http: Http;
  let site: Server;
  let siteBase: string;
  let trackerHits: string[];
  let browser: Browser;
  let account: number;
  let key: string;
  let campaign: number;
  let plan: number;
  let placement: string;
  let tagValue: string;

  const call = async <T = Record<string, unknown>>(method: string, path: string, json?: unknown) => {
    const result = await http<T>(method, path, { key, json });
    if (result.status >= 300) throw new Error(`${method} ${path}: ${result.status} ${result.text}`);
    return result.body;
  };
  const delivery = async (query = '') =>
    call<{ rows: DeliveryRow[]; totals: DeliveryRow }>('GET', `/v2/accounts/${account}/retail-campaigns/${campaign}/delivery${query}`);

  beforeAll(async () => {
    const executablePath = requireTool(CHROMIUM);
    const productPng = await sharp({ create: { width: 400, height: 400, channels: 3, background: { r: 30, g: 120, b: 60 } } })
      .png()
      .toBuffer();
    trackerHits = [];
    // The retailer's site: product images, landing pages, a publisher page holding the tag, and a click tracker.
    site = createServer((req, res) => {
      const url = req.url ?? '/';
      if (url === '/p/1.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(productPng);
      if (url.startsWith('/landing/')) return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>Landing</title><h1>${url}</h1>`);
      if (url.startsWith('/trk/')) {
        trackerHits.push(url);
        return void res.writeHead(200, { 'content-type': 'image/gif' }).end();
      }
      if (url === '/publisher.html')
        return void res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(`<!doctype html><html><head><title>Publisher</title></head><body><h1>News</h1><div id="slot">${tagValue}</div></body></html>`);
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    const sitePort = (site.address() as AddressInfo).port;
    siteBase = `http://127.0.0.1:${sitePort}`;

    system = await startE2eSystem('serve', {
      workers: ['export-renderer'],
      adServer: true,
      env: { OUTBOUND_ALLOWLIST: `127.0.0.1:${sitePort}`, SERVING_SNAPSHOT_DEBOUNCE_MS: '200' },
    });
    http = httpClient(system.baseUrl);
    const a = admin(http);
    const orgId = await a.createOrg({ name: 'Serving Retail', isRetailer: true, dimensionWhitelist: ['300x250'] });
    account = await a.createAccount(orgId, 'Serving');
    key = (await a.createKey({ orgId, permissions: ['*'] })).apiKey;

    const { idx: channel } = await call<{ idx: number }>('POST', `/v2/org/${orgId}/retail-media-channels`, {
      name: 'Display',
      adServerId: 'gam',
      type: 'Off-site',
      activationConfiguration: { tagGeneration: true, creativeGeneration: true },
    });
    ({ retailCampaignId: campaign } = await call<{ retailCampaignId: number }>('POST', `/v2/accounts/${account}/retail-campaigns`, { campaignName: 'Greens' }));
    ({ mediaPlanId: plan } = await call<{ mediaPlanId: number }>('POST', `/v2/accounts/${account}/media-plans/auto`, {
      dimensions: ['300x250'],
      retailCampaignId: campaign,
      mediaChannelIdx: channel,
    }));
    const read = await call<{ adServers: { placements: { placementId: string; placementName: string; siteName: string }[] }[] }>(
      'GET',
      `/v2/accounts/${account}/media-plans/${plan}`,
    );
    placement = read.adServers[0].placements[0].placementId;
    const { id: source } = await call<{ id: number }>('POST', `/v2/accounts/${account}/asset-sources/inline`, {
      assetSourceName: 'Products',
      columnNames: ['sku', 'name', 'price', 'imageUrl', 'productUrl'],
      assetKeyColumn: 'sku',
      data: [{ sku: 'SKU-1', name: 'Kale', price: '$1.99', imageUrl: `${siteBase}/p/1.png`, productUrl: `${siteBase}/landing/kale` }],
    });
    await call('POST', `/v2/accounts/${account}/retail-campaigns/${campaign}/media-plans/${plan}/content-map`, {
      contentType: 'Product',
      dataServiceId: source,
      adGroupPlacementCreativeMap: [{ adGroupId: '', placementCreativeMap: [{ placementId: placement, content: ['SKU-1'] }] }],
    });
    await call('PUT', `/v2/accounts/${account}/media-plans/${plan}/trackers/${campaign}`, {
      type: 'inline',
      mediaPlanDetails: [
        {
          siteName: read.adServers[0].placements[0].siteName,
          placementName: read.adServers[0].placements[0].placementName,
          primaryClickTracker: `${siteBase}/trk/click?ord=%%CACHEBUSTER%%`,
        },
      ],
    });
    await call('PATCH', `/v2/accounts/${account}/retail-campaigns/${campaign}`, { status: 'ACTIVE' });
    ({ tagValue } = await call<{ tagValue: string }>('POST', `/v2/accounts/${account}/media-plans/${plan}/placements/${placement}/tags/rich-media`, {
      campaignId: campaign,
      adServerId: 'gam',
      includeAdChoices: true,
      privacy: [],
      enableNoScriptTag: true,
    }));

    browser = await chromium.launch({
      executablePath,
      args: [...HEADLESS_CHROMIUM_ARGS],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    site?.close();
  });

  it('serves the campaign once its snapshot is compiled, and the exported still once a png export completes', async () => {
    const src = new URL(/src="([^"]+rich-media\.js[^"]*)"/.exec(tagValue)?.[1].replace(/&amp;/g, '&') as string);
    expect(src.origin).toBe(system.baseUrl);
    const explain = async () => (await (await fetch(`${system.baseUrl}/serve/v1/explain${src.search}`)).json()) as Record<string, unknown>;
    expect(await until('the campaign to serve', explain, (body) => body.served === true)).toMatchObject({ creative: 'SKU-1' });

    const started = await call<{ queueId: string }>('POST', `/v2/accounts/${account}/retail-campaigns/${campaign}/exportAssets`, {
      assetExportType: 'png',
      resolution: 1,
    });
    const script = await until(
      'the exported still to be served',
      async () => (await fetch(`${system.baseUrl}/serve/v1/tags/rich-media.js${src.search}`)).text(),
      (body) => body.includes(`/exports/`) && body.includes('.png'),
    );
    expect(script).toContain(`${system.baseUrl}/files/accounts/${account}/`);
    // The still is its entry of the export's zip (the export is one object), read by the gateway with a range request.
    expect(script).toMatch(/_png_1x\.zip\?entry=[^"&]+\.png&amp;at=\d+&amp;bytes=\d+/);
    expect(started.queueId).toEqual(expect.any(String));
  });

  it('draws the ad at the placement size in a page that embeds the tag, counts the impression, and lands the click on the product page', async () => {
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const failed: string[] = [];
    page.on('requestfailed', (request) => failed.push(`${request.url()}: ${request.failure()?.errorText}`));
    await page.goto(`${siteBase}/publisher.html`, { waitUntil: 'load' });
    const ad = page.locator('.rm-ad');
    await ad.waitFor({ state: 'visible', timeout: 20_000 });
    const box = await ad.boundingBox();
    expect({ width: box?.width, height: box?.height }).toEqual({ width: 300, height: 250 });
    const still = page.locator('.rm-ad a.rm-click img');
    // The exported still, loaded from the platform's files (a string expression: the spec is compiled without the DOM types).
    await page.waitForFunction(
      "(() => { const i = document.querySelector('.rm-ad a.rm-click img'); return !!i && i.complete && i.naturalWidth > 0; })()",
      undefined,
      {
        timeout: 20_000,
      },
    );
    expect(await still.evaluate((img) => (img as unknown as { naturalWidth: number; naturalHeight: number }).naturalWidth)).toBe(300);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'ad-serving.png') });

    const impressions = await until(
      'the impression to be counted',
      () => delivery(),
      (answer) => answer.totals.impressions >= 1,
    );
    expect(impressions.totals).toMatchObject({ impressions: 1, clicks: 0 });

    const [landing] = await Promise.all([page.context().waitForEvent('page'), still.click()]);
    await landing.waitForLoadState('load');
    expect(landing.url()).toBe(`${siteBase}/landing/kale`);
    const clicked = await until(
      'the click to be counted',
      () => delivery('?groupBy=placement,creative'),
      (answer) => answer.totals.clicks >= 1,
    );
    expect(clicked.rows).toEqual([expect.objectContaining({ placementId: Number(placement), creative: 'SKU-1', impressions: 1, clicks: 1 })]);
    expect(
      await until(
        'the click tracker to be fired',
        async () => trackerHits,
        (hits) => hits.length > 0,
      ),
    ).toEqual([expect.stringMatching(/^\/trk\/click\?ord=\d{8}$/)]);
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);
  });

  it('answers in-stream VAST that the IAB schema accepts: empty without a video, an InLine ad playing the mp4 export once there is one', async () => {
    const vast = async () => (await fetch(`${system.baseUrl}/serve/v1/vast/in-stream.xml?plc=${placement}&mp=${plan}&cmp=${campaign}&cb=1`)).text();
    const schemaErrors = async (xml: string) =>
      (
        await validateXML({
          xml: [{ fileName: 'a.xml', contents: xml.replace(/\[[A-Z0-9_]+\]/g, '0') }],
          schema: [{ fileName: 'vast_4.2.xsd', contents: VAST_XSD }],
        })
      ).errors;
    const empty = await vast();
    expect(empty).not.toContain('<Ad ');
    expect(await schemaErrors(empty)).toEqual([]);

    await call('POST', `/v2/accounts/${account}/retail-campaigns/${campaign}/exportAssets`, { assetExportType: 'mp4', resolution: 1 });
    const inline = await until('the mp4 export to be served', vast, (xml) => xml.includes('<MediaFile '));
    expect(await schemaErrors(inline)).toEqual([]);
    const mediaUrl = /<MediaFile [^>]*><!\[CDATA\[([^\]]+)\]\]>/.exec(inline)?.[1] as string;
    expect(mediaUrl.startsWith(`${system.baseUrl}/files/accounts/${account}/`)).toBe(true);
    const media = await fetch(mediaUrl);
    expect({ status: media.status, type: media.headers.get('content-type') }).toEqual({ status: 200, type: 'video/mp4' });
    expect(inline).toContain('<Duration>00:00:02.000</Duration>');
    expect(inline).toContain('<Tracking event="firstQuartile">');
  });
});
