import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ffprobe from '@ffprobe-installer/ffprobe';
import sharp from 'sharp';
import { fromBuffer, type Entry } from 'yauzl';
import type { ExportManifest } from '@contracts/domain';
import { admin, E2eSystem, expectProblem, Http, httpClient, startE2eSystem } from './e2e-system';

jest.setTimeout(240_000);

interface StartAnswer {
  queueId: string | null;
  status: string;
  message: string;
}
interface StatusEntry {
  assetExportType: string;
  resolutionsResponse: { status: string; url: string | null; resolution: number; statusMessage: string; queueId: string }[];
}

/** Every entry of a zip, by name, with its bytes. */
function unzip(zip: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    fromBuffer(zip, { lazyEntries: true }, (error, file) => {
      if (error || !file) return reject(error ?? new Error('no zip'));
      const entries = new Map<string, Buffer>();
      file.on('entry', (entry: Entry) => {
        file.openReadStream(entry, (openError, stream) => {
          if (openError || !stream) return reject(openError ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks));
            file.readEntry();
          });
          stream.on('error', reject);
        });
      });
      file.on('end', () => resolve(entries));
      file.on('error', reject);
      file.readEntry();
    });
  });
}

function probe(mp4: Buffer): { codec: string; width: number; height: number; duration: number } {
  const dir = mkdtempSync(join(tmpdir(), 'export-e2e-'));
  try {
    writeFileSync(join(dir, 'v.mp4'), mp4);
    const out = JSON.parse(
      execFileSync(ffprobe.path, [
        '-v',
        'error',
        '-show_entries',
        'stream=codec_name,width,height:format=duration',
        '-of',
        'json',
        join(dir, 'v.mp4'),
      ]).toString(),
    ) as { streams: { codec_name: string; width: number; height: number }[]; format: { duration: string } };
    return { codec: out.streams[0].codec_name, width: out.streams[0].width, height: out.streams[0].height, duration: Number(out.format.duration) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const DIMENSIONS = ['300x250', '728x90'];
const size = (dimension: string, resolution: number) => dimension.split('x').map((n) => Number(n) * resolution);

describe('creative export over HTTP (gateway -> content-creative -> JetStream -> export-renderer -> object storage)', () => {
  let system: E2eSystem;
  let http: Http;
  let images: Server;
  let imageBase: string;
  let account: number;
  let otherAccount: number;
  let fullKey: string;
  let viewOnlyKey: string;
  let campaign: number;
  let plan: number;
  let placements: { placementId: string; dimension: string }[];

  const call = async <T = Record<string, unknown>>(method: string, path: string, json?: unknown, key = fullKey) => {
    const result = await http<T>(method, path, { key, json });
    if (result.status >= 300) throw new Error(`${method} ${path}: ${result.status} ${result.text}`);
    return result.body;
  };
  const exportsPath = (suffix: string, accountId = account, campaignId = campaign) => `/v2/accounts/${accountId}/retail-campaigns/${campaignId}/${suffix}`;
  const start = (body: unknown, key = fullKey, accountId = account) => http<StartAnswer>('POST', exportsPath('exportAssets', accountId), { key, json: body });
  const status = (query = '', key = fullKey) => http<StatusEntry[]>('GET', `${exportsPath('exportAssetStatus')}${query}`, { key });

  /** Polls the status read until the export of this queue has ended; answers its line. */
  async function ended(queueId: string, type: string, query = ''): Promise<StatusEntry['resolutionsResponse'][number]> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const answer = await status(`?assetExportType=${type}${query}`);
      expect(answer.status).toBe(200);
      const line = answer.body.flatMap((e) => e.resolutionsResponse).find((r) => r.queueId === queueId);
      if (line && ['COMPLETED', 'FAILED', 'FAILED_TO_INITIATE'].includes(line.status)) return line;
      if (Date.now() > deadline) throw new Error(`export ${queueId} did not end: ${JSON.stringify(answer.body)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** The content map read's first previewUrl of every item, placement by placement. */
  async function previewUrls(): Promise<string[]> {
    const map = await call<{ placementContentMap: { content: { previewUrls: { url: string }[] }[] }[] }>(
      'GET',
      `/v2/accounts/${account}/retail-campaigns/${campaign}/media-plans/${plan}/content-map`,
    );
    return map.placementContentMap.flatMap((p) => p.content.map((c) => c.previewUrls[0].url));
  }

  async function download(url: string): Promise<Map<string, Buffer>> {
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    return unzip(Buffer.from(await response.arrayBuffer()));
  }

  async function exportAndDownload(assetExportType: string, resolution: number) {
    const started = await start({ assetExportType, resolution });
    expect(started.status).toBe(200);
    expect(started.body.status).toBe('INITIATED');
    const queueId = started.body.queueId as string;
    const line = await ended(queueId, assetExportType);
    expect(line).toMatchObject({ status: 'COMPLETED', resolution });
    const files = await download(line.url as string);
    const manifest = JSON.parse((files.get('manifest.json') as Buffer).toString()) as ExportManifest;
    return { queueId, line, files, manifest };
  }

  beforeAll(async () => {
    const productPng = await sharp({ create: { width: 400, height: 400, channels: 3, background: { r: 220, g: 40, b: 40 } } })
      .png()
      .toBuffer();
    images = createServer((req, res) => {
      if (req.url === '/p/1.png') res.writeHead(200, { 'content-type': 'image/png' }).end(productPng);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    const { port } = images.address() as AddressInfo;
    imageBase = `http://127.0.0.1:${port}`;

    system = await startE2eSystem('exp', { workers: ['export-renderer'], env: { OUTBOUND_ALLOWLIST: `127.0.0.1:${port}` } });
    http = httpClient(system.baseUrl);
    const a = admin(http);
    const orgId = await a.createOrg({ name: 'Export Retail', isRetailer: true, dimensionWhitelist: DIMENSIONS });
    account = await a.createAccount(orgId, 'Exports');
    otherAccount = await a.createAccount(await a.createOrg({ name: 'Elsewhere', isRetailer: true }), 'Not ours');
    fullKey = (await a.createKey({ orgId, permissions: ['*'] })).apiKey;
    viewOnlyKey = (await a.createKey({ orgId, permissions: ['RetailCampaigns_View'] })).apiKey;

    const { idx: channel } = await call<{ idx: number }>('POST', `/v2/org/${orgId}/retail-media-channels`, {
      name: 'Display',
      adServerId: 'gam',
      type: 'Off-site',
      activationConfiguration: { tagGeneration: true, creativeGeneration: true },
    });
    // A carousel template with a 300x250 layout only: 728x90 is drawn from it stretched.
    const { templateIdx } = await call<{ templateIdx: number }>('POST', `/v2/accounts/${account}/retail-campaigns/retail-templates/custom`, {
      templateName: 'Spring carousel',
      retailerId: 1,
      inventoryType: 'offsite',
      adFormat: 'Display Banner',
      sourceOfProductInformation: 'Retailer Product Feed',
      productSelectionMethod: 'Fixed Product Selection',
      creativeStyle: ['Animated Carousel'],
      category: ['Grocery'],
      templateType: ['Carousel'],
      layouts: [
        {
          dimension: '300x250',
          backgroundColor: '#f4f1ea',
          logo: { x: 10, y: 10, w: 80, h: 20 },
          productImage: { x: 10, y: 40, w: 140, h: 140 },
          headline: { box: { x: 160, y: 50, w: 130, h: 30 }, color: '#111111', fontSize: 16, text: 'Headline' },
          price: { box: { x: 160, y: 100, w: 130, h: 30 }, color: '#c8102e', fontSize: 18, text: '$9.99' },
          callToAction: { box: { x: 160, y: 200, w: 120, h: 36 }, color: '#ffffff', backgroundColor: '#1a73e8', fontSize: 14, text: 'Shop now' },
        },
      ],
    });
    ({ retailCampaignId: campaign } = await call<{ retailCampaignId: number }>('POST', `/v2/accounts/${account}/retail-campaigns`, {
      campaignName: 'Spring sale',
      templateIdx,
    }));
    ({ mediaPlanId: plan } = await call<{ mediaPlanId: number }>('POST', `/v2/accounts/${account}/media-plans/auto`, {
      dimensions: DIMENSIONS,
      retailCampaignId: campaign,
      mediaChannelIdx: channel,
    }));
    const read = await call<{ adServers: { placements: { placementId: string; dimension: string }[] }[] }>(
      'GET',
      `/v2/accounts/${account}/media-plans/${plan}`,
    );
    placements = read.adServers.flatMap((s) => s.placements);
    expect(placements.map((p) => p.dimension).sort()).toEqual(['300x250', '728x90']);

    const { id: source } = await call<{ id: number }>('POST', `/v2/accounts/${account}/asset-sources/inline`, {
      assetSourceName: 'Products',
      columnNames: ['sku', 'name', 'price', 'callToAction', 'brandColor', 'imageUrl'],
      assetKeyColumn: 'sku',
      data: [
        { sku: 'SKU-1', name: 'Oat milk 1 l', price: '$2.49', callToAction: 'Buy now', brandColor: '#203040', imageUrl: `${imageBase}/p/1.png` },
        { sku: 'SKU-2', name: 'Rye bread', price: '$3.10', callToAction: 'Order', brandColor: '#f0e0c0', imageUrl: `${imageBase}/p/missing.png` },
      ],
    });
    await call('POST', `/v2/accounts/${account}/retail-campaigns/${campaign}/media-plans/${plan}/content-map`, {
      contentType: 'Product',
      dataServiceId: source,
      adGroupPlacementCreativeMap: [
        { adGroupId: '', placementCreativeMap: placements.map((p) => ({ placementId: p.placementId, content: ['SKU-1', 'SKU-2'] })) },
      ],
    });
  });

  afterAll(async () => {
    await system?.stop();
    images?.close();
  });

  it('refuses to export a campaign that is not ACTIVE, naming its status, and starts nothing', async () => {
    expectProblem(await start({ assetExportType: 'png', resolution: 1 }), 409, 'RETAIL_CAMPAIGN_NOT_ACTIVE');
    expect((await start({ assetExportType: 'png', resolution: 1 })).body).toMatchObject({ detail: expect.stringContaining('DRAFT') });
    expect((await status()).body).toEqual([]);
    await call('PATCH', `/v2/accounts/${account}/retail-campaigns/${campaign}`, { status: 'ACTIVE' });
  });

  it('refuses bad input with 400 naming the field and the rule', async () => {
    for (const type of ['tiff', 'mp4']) {
      const refused = await start({ assetExportType: type, resolution: 2 });
      expectProblem(refused, 400, 'VALIDATION_FAILED');
      expect(refused.body.errors).toEqual([expect.objectContaining({ pointer: '/resolution', code: 'EXPORT_RESOLUTION_NOT_SUPPORTED' })]);
    }
    const badType = await start({ assetExportType: 'bmp', resolution: 1 });
    expectProblem(badType, 400, 'VALIDATION_FAILED');
    expect(badType.body.errors).toEqual([expect.objectContaining({ pointer: '/assetExportType', code: 'NOT_ALLOWED' })]);
    expectProblem(await start({ assetExportType: 'png', resolution: 3 }), 400, 'VALIDATION_FAILED');
    expect((await status()).body).toEqual([]);
  });

  it('checks permission and scope', async () => {
    expectProblem(await start({ assetExportType: 'png', resolution: 1 }, viewOnlyKey), 403, 'PERMISSION_DENIED');
    expectProblem(await status('', viewOnlyKey), 403, 'PERMISSION_DENIED');
    expectProblem(await start({ assetExportType: 'png', resolution: 1 }, fullKey, otherAccount), 404, 'ACCOUNT_NOT_FOUND');
  });

  it('exports png at resolution 2: one file per placement and product at twice the placement size, downloadable as a zip with its manifest', async () => {
    const first = await start({ assetExportType: 'png', resolution: 2 });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'INITIATED', queueId: expect.any(String) });
    // The queue answers for it at once: the start hands its Queued state to the queue view before answering.
    const queued = await http<{ status: string }>('GET', `/v2/queues/${first.body.queueId}/status`, { key: fullKey });
    expect(queued.status).toBe(200);
    expect(['Queued', 'Processing', 'Completed']).toContain(queued.body.status);
    // A second start while it runs answers the running export, not a new one.
    const again = await start({ assetExportType: 'png', resolution: 2 });
    expect(again.body.queueId).toBe(first.body.queueId);
    expect(['INITIATED', 'PROCESSING']).toContain(again.body.status);

    const queueId = first.body.queueId as string;
    const line = await ended(queueId, 'png');
    expect(line).toMatchObject({
      status: 'COMPLETED',
      resolution: 2,
      url: expect.stringMatching(/\/files\/accounts\/\d+\/exports\/.+Spring-sale_png_2x\.zip$/),
    });
    expect(line.statusMessage).toMatch(/^Rendered 4 of 4 creatives; 3 with warnings/);

    const files = await download(line.url as string);
    const manifest = JSON.parse((files.get('manifest.json') as Buffer).toString()) as ExportManifest;
    expect(manifest).toMatchObject({ queueId, retailCampaignId: campaign, campaignName: 'Spring sale', assetExportType: 'png', resolution: 2 });
    expect(manifest.assets).toHaveLength(4);
    expect(files.size).toBe(5);
    for (const asset of manifest.assets) {
      expect(asset.status).toBe('COMPLETED');
      const file = files.get(asset.fileName) as Buffer;
      expect(file.length).toBe(asset.bytes);
      const [width, height] = size(asset.dimension, 2);
      expect(await sharp(file).metadata()).toMatchObject({ format: 'png', width, height });
      const stats = await sharp(file).stats();
      expect(Math.max(...stats.channels.slice(0, 3).map((c) => c.stdev))).toBeGreaterThan(10);
    }
    // The product whose image is missing is drawn with a placeholder, and the manifest says so.
    const sku2 = manifest.assets.filter((a) => a.contentValue === 'SKU-2');
    expect(sku2).toHaveLength(2);
    for (const asset of sku2) expect(asset.warnings).toContain('SKU-2: the product image answered HTTP 404; a placeholder was drawn');
    expect(manifest.assets.find((a) => a.contentValue === 'SKU-1' && a.dimension === '728x90')?.warnings).toEqual([
      'the template has no 728x90 layout; its nearest one was stretched',
    ]);

    // The queue view followed it; the manifest is readable through its extension.
    const queue = await http<{ status: string; totalItems: number; totalProcessed: number }>('GET', `/v2/queues/${queueId}/status`, { key: fullKey });
    expect(queue.body).toMatchObject({ status: 'Completed', totalItems: 4, totalProcessed: 4 });
    const read = await http<{ status: string; url: string; manifest: ExportManifest }>('GET', exportsPath(`exports/${queueId}/manifest`), { key: fullKey });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ status: 'COMPLETED', url: line.url });
    expect(read.body.manifest).toEqual(manifest);
    expectProblem(await http('GET', exportsPath('exports/not-an-export/manifest'), { key: fullKey }), 404, 'EXPORT_NOT_FOUND');

    // A full png export is one object, its zip: each still is served out of it by the offset the manifest gives
    // (one range read), whole or by byte range; the content map read previews come from preview exports only:
    // still the product images.
    const zipUrl = line.url as string;
    for (const asset of manifest.assets) {
      expect(asset.previewPath).toBeUndefined();
      const entryUrl = `${zipUrl}?entry=${encodeURIComponent(asset.fileName)}&at=${asset.zipOffset}&bytes=${asset.bytes}`;
      const still = await fetch(entryUrl);
      expect({ status: still.status, type: still.headers.get('content-type'), ranges: still.headers.get('accept-ranges') }).toEqual({
        status: 200,
        type: 'image/png',
        ranges: 'bytes',
      });
      expect(Buffer.from(await still.arrayBuffer()).equals(files.get(asset.fileName) as Buffer)).toBe(true);
      const part = await fetch(entryUrl, { headers: { Range: 'bytes=8-15' } });
      expect({ status: part.status, range: part.headers.get('content-range') }).toEqual({ status: 206, range: `bytes 8-15/${asset.bytes}` });
      expect(Buffer.from(await part.arrayBuffer()).equals((files.get(asset.fileName) as Buffer).subarray(8, 16))).toBe(true);
    }
    // An offset that is not an entry's answers 404, never other bytes of the zip.
    const [one] = manifest.assets;
    const wrong = await fetch(`${zipUrl}?entry=${one.fileName}&at=${(one.zipOffset as number) + 1}&bytes=${one.bytes}`);
    expect(wrong.status).toBe(404);
    expect(await previewUrls()).toEqual(placements.flatMap(() => [`${imageBase}/p/1.png`, `${imageBase}/p/missing.png`]));
  });

  it.each([
    ['jpg', 2, 'jpeg'],
    ['tiff', 1, 'tiff'],
  ])('exports %s at resolution %d with every file of that format and size', async (type, resolution, format) => {
    const { files, manifest } = await exportAndDownload(type, resolution);
    expect(manifest.assets).toHaveLength(4);
    for (const asset of manifest.assets) {
      const [width, height] = size(asset.dimension, resolution);
      expect(await sharp(files.get(asset.fileName) as Buffer).metadata()).toMatchObject({ format, width, height });
    }
  });

  it('exports gif as an animated carousel: one file per placement cycling through its products', async () => {
    const { files, manifest } = await exportAndDownload('gif', 2);
    expect(manifest.assets).toHaveLength(2);
    for (const asset of manifest.assets) {
      expect(asset.contentValue).toBe('SKU-1, SKU-2');
      const [width, height] = size(asset.dimension, 2);
      expect(await sharp(files.get(asset.fileName) as Buffer, { animated: true }).metadata()).toMatchObject({
        format: 'gif',
        width,
        pageHeight: height,
        pages: 2,
      });
    }
  });

  it('exports mp4 as a short H.264 video of the same frames, read back with ffprobe', async () => {
    const { files, manifest } = await exportAndDownload('mp4', 1);
    expect(manifest.assets).toHaveLength(2);
    for (const asset of manifest.assets) {
      const video = probe(files.get(asset.fileName) as Buffer);
      const [width, height] = size(asset.dimension, 1);
      expect(video).toMatchObject({ codec: 'h264', width, height });
      expect(video.duration).toBeCloseTo(4, 0);
      // Kept on its own too, for ad serving's VAST MediaFile, with its running time in the manifest.
      expect(asset.durationSeconds).toBe(4);
      const kept = await fetch(`${system.baseUrl}/files/accounts/${account}/${asset.previewPath}`);
      expect(kept.headers.get('content-type')).toBe('video/mp4');
      expect(Buffer.from(await kept.arrayBuffer()).equals(files.get(asset.fileName) as Buffer)).toBe(true);
      // Players ask for byte ranges.
      const part = await fetch(`${system.baseUrl}/files/accounts/${account}/${asset.previewPath}`, { headers: { Range: 'bytes=0-99' } });
      expect({ status: part.status, type: part.headers.get('content-type'), range: part.headers.get('content-range') }).toEqual({
        status: 206,
        type: 'video/mp4',
        range: `bytes 0-99/${asset.bytes}`,
      });
      expect(Buffer.from(await part.arrayBuffer()).equals((files.get(asset.fileName) as Buffer).subarray(0, 100))).toBe(true);
    }
  });

  it('lists one entry per format, filtered by type and resolution', async () => {
    const all = await status();
    expect(all.body.map((e) => e.assetExportType)).toEqual(['png', 'jpg', 'gif', 'tiff', 'mp4']);
    for (const entry of all.body) for (const line of entry.resolutionsResponse) expect(line).toMatchObject({ status: 'COMPLETED', url: expect.any(String) });
    // A format and resolution the filter names that was never exported: NOT_INITIATED, no url.
    const filtered = await status('?assetExportType=jpg&resolution=1');
    expect(filtered.body).toEqual([
      {
        assetExportType: 'jpg',
        resolutionsResponse: [
          { status: 'NOT_INITIATED', url: null, resolution: 1, statusMessage: 'No export of this format and resolution has been started.', queueId: '' },
        ],
      },
    ]);
    expect((await status('?assetExportType=png')).body[0].resolutionsResponse.map((r) => [r.resolution, r.status])).toEqual([
      [1, 'NOT_INITIATED'],
      [2, 'COMPLETED'],
    ]);
    expect((await status('?isPreviewExport=true')).body).toEqual([]);
    expectProblem(await status('?resolution=5'), 400, 'VALIDATION_FAILED');
  });

  it("starts a preview export: png at 1 of the first items of each placement, listed under isPreviewExport, and the content map's previewUrls", async () => {
    const refused = await start({ assetExportType: 'jpg', resolution: 1, isPreviewExport: true });
    expectProblem(refused, 400, 'VALIDATION_FAILED');
    expect(refused.body.errors).toEqual([expect.objectContaining({ pointer: '/assetExportType', code: 'NOT_ALLOWED' })]);

    const started = await start({ assetExportType: 'png', resolution: 1, isPreviewExport: true });
    expect(started.body).toMatchObject({ status: 'INITIATED', message: 'The preview export has started.' });
    const queueId = started.body.queueId as string;
    const line = await ended(queueId, 'png', '&isPreviewExport=true');
    expect(line).toMatchObject({ status: 'COMPLETED', resolution: 1, url: expect.stringMatching(/Spring-sale_png_1x_preview\.zip$/) });
    // Listed under isPreviewExport only: the full png lines are as they were.
    expect((await status('?assetExportType=png')).body[0].resolutionsResponse.every((r) => r.queueId !== queueId)).toBe(true);

    const files = await download(line.url as string);
    const manifest = JSON.parse((files.get('manifest.json') as Buffer).toString()) as ExportManifest;
    expect(manifest).toMatchObject({ queueId, assetExportType: 'png', resolution: 1, isPreview: true });
    expect(manifest.assets).toHaveLength(4);
    const urls = await previewUrls();
    expect(urls).toHaveLength(4);
    for (const asset of manifest.assets) {
      expect(asset.previewPath).toEqual(expect.stringContaining(`/${queueId}/files/${asset.fileName}`));
      const url = urls.find((u) => decodeURIComponent(u).endsWith(`/files/accounts/${account}/${asset.previewPath}`)) as string;
      expect(url).toBeDefined();
      const preview = Buffer.from(await (await fetch(url)).arrayBuffer());
      expect(preview.equals(files.get(asset.fileName) as Buffer)).toBe(true);
      const [width, height] = size(asset.dimension, 1);
      expect(await sharp(preview).metadata()).toMatchObject({ format: 'png', width, height });
    }
  });

  it('answers FAILED_TO_INITIATE for an accepted export the renderer refuses before PROCESSING: a campaign with nothing mapped', async () => {
    const { retailCampaignId: empty } = await call<{ retailCampaignId: number }>('POST', `/v2/accounts/${account}/retail-campaigns`, {
      campaignName: 'Nothing mapped',
    });
    await call('PATCH', `/v2/accounts/${account}/retail-campaigns/${empty}`, { status: 'ACTIVE' });
    const started = await http<StartAnswer>('POST', exportsPath('exportAssets', account, empty), {
      key: fullKey,
      json: { assetExportType: 'jpg', resolution: 1 },
    });
    expect(started.body).toMatchObject({ status: 'INITIATED' });
    const deadline = Date.now() + 120_000;
    for (;;) {
      const answer = await http<StatusEntry[]>('GET', `${exportsPath('exportAssetStatus', account, empty)}?assetExportType=jpg`, { key: fullKey });
      const lines = answer.body.flatMap((e) => e.resolutionsResponse);
      if (lines[0]?.status === 'FAILED_TO_INITIATE') {
        expect(lines).toEqual([
          {
            status: 'FAILED_TO_INITIATE',
            url: null,
            resolution: 1,
            statusMessage: 'The campaign has no content mapped to placements of its media plans: nothing to export.',
            queueId: started.body.queueId,
          },
          // jpg at 2 was never started.
          expect.objectContaining({ status: 'NOT_INITIATED', resolution: 2, url: null, queueId: '' }),
        ]);
        break;
      }
      // Refused at intake: it never shows PROCESSING.
      expect(lines[0]?.status).toBe('INITIATED');
      if (Date.now() > deadline) throw new Error(`export did not end: ${JSON.stringify(answer.body)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // The queue view learns the end from the job's own progress events, a moment apart from the export's row.
    for (const until = Date.now() + 30_000; ;) {
      const queue = await http<{ status: string }>('GET', `/v2/queues/${started.body.queueId}/status`, { key: fullKey });
      if (queue.body.status === 'Failed') break;
      expect(['Queued', 'Processing']).toContain(queue.body.status);
      if (Date.now() > until) throw new Error(`the queue view did not end the job: ${queue.body.status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  it('answers repeated status reads from the gateway cache, and the read after a campaign is archived answers ARCHIVED', async () => {
    const lookups = async (outcome: string) => {
      const metrics = await (await fetch(system.metricsUrl)).text();
      const line = metrics
        .split('\n')
        .find((l) => l.startsWith('gateway_response_cache_lookups_total') && l.includes('exportAssetStatus') && l.includes(`outcome="${outcome}"`));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const read = async () => {
      const answer = await status('?assetExportType=png&resolution=2');
      expect(answer.status).toBe(200);
      return answer.body[0].resolutionsResponse;
    };
    const [line] = await read();
    expect(line).toMatchObject({ status: 'COMPLETED', url: expect.any(String) });
    const hitsBefore = await lookups('hit');
    expect(await read()).toEqual([line]);
    expect(await lookups('hit')).toBeGreaterThan(hitsBefore);
    // Changed behind the service, with no notice: only the cache TTL would bound this, and it proves the read came from memory.
    await system.sql('content_creative', 'UPDATE exports SET status_message = ? WHERE queue_id = ?', ['changed behind the service', line.queueId]);
    expect(await read()).toEqual([line]);

    await call('PATCH', `/v2/accounts/${account}/retail-campaigns/${campaign}`, { status: 'ARCHIVED' });
    expect(await read()).toEqual([{ ...line, status: 'ARCHIVED', url: null, statusMessage: 'changed behind the service' }]);
  });
});
