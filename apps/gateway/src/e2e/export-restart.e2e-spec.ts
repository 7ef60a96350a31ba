import { encodeJobRequest, prefixedJobRequestSubject } from '@platform/jobs';
import { closeNats, connectNats, publish } from '@platform/nats';
import { createLogger } from '@platform/logging';
import sharp from 'sharp';
import { fromBuffer, type Entry } from 'yauzl';
import type { ExportManifest } from '@contracts/domain';
import { admin, E2eSystem, Http, httpClient, startE2eSystem } from './e2e-system';

jest.setTimeout(300_000);

/** Names and bytes of every entry of a zip. */
function unzip(zip: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    fromBuffer(zip, { lazyEntries: true }, (error, file) => {
      if (error || !file) return reject(error ?? new Error('no zip'));
      const entries = new Map<string, Buffer>();
      let count = 0;
      file.on('entry', (entry: Entry) => {
        count++;
        file.openReadStream(entry, (openError, stream) => {
          if (openError || !stream) return reject(openError ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks));
            file.readEntry();
          });
        });
      });
      // A name twice in the zip would collapse in the map: the count says whether it happened.
      file.on('end', () => (count === entries.size ? resolve(entries) : reject(new Error(`${count} entries, ${entries.size} names`))));
      file.on('error', reject);
      file.readEntry();
    });
  });
}

const PRODUCTS = 100;

describe('export renderer killed in the middle of a job', () => {
  let system: E2eSystem;
  let http: Http;
  let account: number;
  let key: string;
  let campaign: number;

  const call = async <T = Record<string, unknown>>(method: string, path: string, json?: unknown) => {
    const result = await http<T>(method, path, { key, json });
    if (result.status >= 300) throw new Error(`${method} ${path}: ${result.status} ${result.text}`);
    return result.body;
  };
  const queue = (queueId: string) =>
    call<{ status: string; totalItems: number; totalProcessed: number; message: string }>('GET', `/v2/queues/${queueId}/status`);

  beforeAll(async () => {
    // A short ack wait, so the job held by the killed worker comes back within seconds; one creative at a time, so the job lasts long enough to be cut.
    system = await startE2eSystem('exk', { workers: ['export-renderer'], env: { JOB_ACK_WAIT_MS: '3000', EXPORT_RENDER_CONCURRENCY: '1' } });
    http = httpClient(system.baseUrl);
    const a = admin(http);
    const orgId = await a.createOrg({ name: 'Restart Retail', isRetailer: true, dimensionWhitelist: ['300x250', '728x90'] });
    account = await a.createAccount(orgId, 'Exports');
    key = (await a.createKey({ orgId, permissions: ['*'] })).apiKey;
    const { idx: channel } = await call<{ idx: number }>('POST', `/v2/org/${orgId}/retail-media-channels`, {
      name: 'Display',
      adServerId: 'gam',
      type: 'Off-site',
      activationConfiguration: { tagGeneration: true, creativeGeneration: true },
    });
    ({ retailCampaignId: campaign } = await call<{ retailCampaignId: number }>('POST', `/v2/accounts/${account}/retail-campaigns`, {
      campaignName: 'Restart',
    }));
    const { mediaPlanId } = await call<{ mediaPlanId: number }>('POST', `/v2/accounts/${account}/media-plans/auto`, {
      dimensions: ['300x250', '728x90'],
      retailCampaignId: campaign,
      mediaChannelIdx: channel,
    });
    const read = await call<{ adServers: { placements: { placementId: string }[] }[] }>('GET', `/v2/accounts/${account}/media-plans/${mediaPlanId}`);
    const skus = Array.from({ length: PRODUCTS }, (_, i) => `SKU-${i + 1}`);
    const { id: source } = await call<{ id: number }>('POST', `/v2/accounts/${account}/asset-sources/inline`, {
      assetSourceName: 'Products',
      columnNames: ['sku', 'name', 'price'],
      assetKeyColumn: 'sku',
      data: skus.map((sku, i) => ({ sku, name: `Product ${i + 1}`, price: `$${i + 1}.99` })),
    });
    await call('POST', `/v2/accounts/${account}/retail-campaigns/${campaign}/media-plans/${mediaPlanId}/content-map`, {
      contentType: 'Product',
      dataServiceId: source,
      adGroupPlacementCreativeMap: [
        { adGroupId: '', placementCreativeMap: read.adServers.flatMap((s) => s.placements.map((p) => ({ placementId: p.placementId, content: skus }))) },
      ],
    });
    await call('PATCH', `/v2/accounts/${account}/retail-campaigns/${campaign}`, { status: 'ACTIVE' });
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('finishes the job after a restart, with no partial or duplicate output visible before or after', async () => {
    const { queueId } = await call<{ queueId: string }>('POST', `/v2/accounts/${account}/retail-campaigns/${campaign}/exportAssets`, {
      assetExportType: 'png',
      resolution: 2,
    });
    // Kill the renderer (SIGKILL: no drain, no ack) once it has drawn part of the export.
    for (const deadline = Date.now() + 60_000; ;) {
      // The queue view learns of the job from its events, so it can miss the job for a moment after the start answers.
      const answer = await http<{ status: string; totalProcessed: number }>('GET', `/v2/queues/${queueId}/status`, { key });
      const view = answer.status === 404 ? { status: 'Unknown', totalProcessed: 0 } : answer.body;
      if (view.status === 'Processing' && view.totalProcessed >= 5) break;
      if (view.status === 'Completed' || Date.now() > deadline) throw new Error(`the job was not caught in the middle: ${JSON.stringify(view)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const renderer = system.otherBackends.find((p) => p.name === 'export-renderer');
    if (!renderer) throw new Error('no renderer running');
    const killed = new Promise((resolve) => renderer.child.once('exit', resolve));
    renderer.child.kill('SIGKILL');
    await killed;
    system.otherBackends.splice(system.otherBackends.indexOf(renderer), 1);

    // Nothing of the cut job is visible: no url, no manifest, the queue short of its end.
    const during = await call<{ status: string; url: string | null; manifest: unknown }>(
      'GET',
      `/v2/accounts/${account}/retail-campaigns/${campaign}/exports/${queueId}/manifest`,
    );
    expect(during).toMatchObject({ status: 'PROCESSING', url: null, manifest: null });
    const cut = await queue(queueId);
    expect(cut.status).toBe('Processing');
    expect(cut.totalProcessed).toBeLessThan(2 * PRODUCTS);

    await system.startWorker('export-renderer');
    let line: { status: string; url: string | null; statusMessage: string } | undefined;
    for (const deadline = Date.now() + 120_000; !line || line.status !== 'COMPLETED';) {
      if (Date.now() > deadline) throw new Error(`the export did not complete after the restart: ${JSON.stringify(line)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
      const entries = await call<{ resolutionsResponse: { status: string; url: string | null; statusMessage: string; queueId: string }[] }[]>(
        'GET',
        `/v2/accounts/${account}/retail-campaigns/${campaign}/exportAssetStatus?assetExportType=png`,
      );
      line = entries[0]?.resolutionsResponse.find((r) => r.queueId === queueId);
      expect(line?.status).not.toBe('FAILED');
    }
    // Every creative drawn (the products have no image, hence the placeholder warnings), none failed.
    expect(line.statusMessage).toMatch(new RegExp(`^Rendered ${2 * PRODUCTS} of ${2 * PRODUCTS} creatives; ${2 * PRODUCTS} with warnings`));
    expect(line.statusMessage).not.toMatch(/failed/);
    expect(await queue(queueId)).toMatchObject({ status: 'Completed', totalItems: 2 * PRODUCTS, totalProcessed: 2 * PRODUCTS });

    const response = await fetch(line.url as string);
    expect(response.status).toBe(200);
    const files = await unzip(Buffer.from(await response.arrayBuffer()));
    const manifest = JSON.parse((files.get('manifest.json') as Buffer).toString()) as ExportManifest;
    expect(manifest.assets).toHaveLength(2 * PRODUCTS);
    expect(files.size).toBe(2 * PRODUCTS + 1);
    expect(new Set(manifest.assets.map((a) => `${a.placementId} ${a.contentValue}`)).size).toBe(2 * PRODUCTS);
    for (const asset of manifest.assets) {
      expect(asset.status).toBe('COMPLETED');
      const [width, height] = asset.dimension.split('x').map((n) => Number(n) * 2);
      expect(await sharp(files.get(asset.fileName) as Buffer).metadata()).toMatchObject({ format: 'png', width, height });
    }
  });

  it('ends a poison job (an export nobody knows) as Failed at once, not in a loop', async () => {
    const logger = createLogger({ service: 'export-restart-spec', level: 'silent' });
    const nats = await connectNats({ url: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222', name: 'export-restart-spec', logger });
    try {
      const request = {
        queueId: 'poison-export-1',
        accountId: account,
        kind: 'asset-export',
        payload: { orgId: 'nobody', retailCampaignId: campaign, assetExportType: 'png', resolution: 1, objectPath: 'exports/x.zip' },
      };
      await publish(nats.jetstream(), prefixedJobRequestSubject(system.prefix, 'asset-export'), encodeJobRequest(request), { msgId: 'job:poison-export-1' });
    } finally {
      await closeNats(nats);
    }
    let view: { status: string; message: string } | undefined;
    for (const deadline = Date.now() + 30_000; view?.status !== 'Failed';) {
      if (Date.now() > deadline) throw new Error(`the poison job did not fail: ${JSON.stringify(view)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const answer = await http<{ status: string; message: string }>('GET', '/v2/queues/poison-export-1/status', { key });
      if (answer.status === 200) view = answer.body;
    }
    expect(view.message).toMatch(/^Export poison-export-1 is not known/);
    // It stays Failed: no redelivery reopens it.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect((await http<{ status: string }>('GET', '/v2/queues/poison-export-1/status', { key })).body.status).toBe('Failed');
  });
});
