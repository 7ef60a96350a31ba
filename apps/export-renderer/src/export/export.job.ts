import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXPORT_JOB_KIND, EXPORT_LIMITS, type AssetExportJob, type ExportManifest, type ExportManifestAsset } from '@contracts/domain';
import { AppError } from '@platform/errors';
import { principalMetadata, workerPrincipal, type Metadata } from '@platform/grpc';
import { JobFailed, type JobHandler, type JobRequest } from '@platform/jobs';
import type { Logger } from '@platform/logging';
import type { ObjectStore } from '@platform/s3';
import type { ContentCreativePeer } from '../peers/content-creative.peer';
import type { TemplateRendering, TemplatesPeer } from '../peers/templates.peer';
import type { ProductImage, ProductImageSource } from '../product-images/product-image.source';
import { chooseLayout, creativeContentOf } from '../rendering/creative-layout';
import { encodeGif, encodeStill, renderFrame, type Frame } from '../rendering/creative-renderer';
import { encodeMp4, VIDEO_SECONDS_PER_FRAME } from '../rendering/video-encoder';
import { openExportZip, type ExportZip } from './export-archive';
import { isCarousel, planAssets, type PlannedAsset } from './export-plan';

export interface ExportJobDeps {
  store: ObjectStore;
  /** INTERNAL_AUTH_KEY: signs the principal the renderer acts with, for the export's account only. */
  principalKey: Buffer;
  contentCreative: (metadata: Metadata) => ContentCreativePeer;
  templates: (metadata: Metadata) => TemplatesPeer;
  images: ProductImageSource;
  tmpDir?: string;
  /** Creatives drawn at once. */
  concurrency?: number;
  logger: Logger;
}

/** How long a carousel frame shows in a gif. */
const GIF_FRAME_MS = 2_000;
/** Progress goes to the queue view at most this often (and at the end): a report per creative would cost a JetStream round trip each. */
const PROGRESS_EVERY_MS = 500;
/** Preview objects being put at once. */
const PREVIEW_PUTS_IN_FLIGHT = 8;
/** Product images an export holds at once (each at most EXPORT_LIMITS.maxImageBytes). */
const IMAGE_CACHE_ENTRIES = 8;
/** Creatives ahead of the drawing lanes whose product images are fetched while the lanes draw (well inside the cache). */
const IMAGE_LOOKAHEAD = 4;

/** Runs added tasks at most `limit` at a time; `settled` resolves when all ran and rejects with the first failure. */
function boundedQueue(limit: number): { add(task: () => Promise<void>): void; settled(): Promise<void> } {
  const waiting: (() => Promise<void>)[] = [];
  const running = new Set<Promise<void>>();
  let failure: unknown;
  const pump = () => {
    while (running.size < limit && waiting.length > 0) {
      const task = (waiting.shift() as () => Promise<void>)().catch((error: unknown) => {
        failure ??= error;
      });
      running.add(task);
      void task.finally(() => {
        running.delete(task);
        pump();
      });
    }
  };
  return {
    add(task) {
      waiting.push(task);
      pump();
    },
    async settled() {
      while (waiting.length > 0 || running.size > 0) await Promise.all([...running]);
      if (failure !== undefined) throw failure;
    },
  };
}

const accountKey = (accountId: number, path: string) => `accounts/${accountId}/${path}`;
const folderOf = (path: string) => path.slice(0, path.lastIndexOf('/'));

/**
 * The export job: asks content-creative what to render, draws every creative from the campaign's
 * template layout and each product's row, writes the files and a manifest into one zip in object
 * storage, and tells content-creative how it went. A creative that fails is listed as failed in the
 * manifest and the others go on; the export fails only when none could be drawn (or the job itself
 * cannot run). Repeatable: every key is fixed by the job, the zip is put whole, and a job redelivered
 * after content-creative recorded its end does nothing again.
 */
export function exportJob(deps: ExportJobDeps): JobHandler<AssetExportJob> {
  const { store, images, logger } = deps;
  const concurrency = deps.concurrency ?? 2;
  const peersFor = (job: JobRequest<AssetExportJob>) => {
    const principal = workerPrincipal('export-renderer', job.payload.orgId, job.accountId);
    // Signed afresh when used (principalMetadata reuses a signature for a minute), so a long job never sends an expired one.
    return {
      contentCreative: () => deps.contentCreative(principalMetadata(principal, deps.principalKey)),
      templates: () => deps.templates(principalMetadata(principal, deps.principalKey)),
    };
  };

  async function drawAsset(
    accountId: number,
    asset: PlannedAsset,
    job: AssetExportJob,
    template: TemplateRendering | undefined,
    dir: string,
    loadImage: (url: string | null) => Promise<ProductImage>,
    zip: ExportZip,
    /** Preview and mp4 exports: stores the file on its own too. */
    storePreview: ((key: string, bytes: Buffer, contentType: string) => void) | undefined,
  ): Promise<{ entry: ExportManifestAsset; drawn: boolean }> {
    const base = {
      mediaPlanId: asset.mediaPlanId,
      placementId: asset.placementId,
      placementName: asset.placementName,
      contentValue: asset.items.map((item) => item.contentValue).join(', '),
      dimension: asset.dimension,
      resolution: job.resolution,
    };
    try {
      const warnings: string[] = [];
      const frames: Frame[] = [];
      for (const item of asset.items) {
        const chosen = chooseLayout(template?.layouts ?? [], asset.dimension, job.resolution);
        if (chosen.source === 'scaled') warnings.push(`the template has no ${asset.dimension} layout; its nearest one was stretched`);
        if (chosen.source === 'default' && template) warnings.push('the template has no layout; a default layout was drawn');
        const content = creativeContentOf(item.row, item.contentValue);
        const image = await loadImage(content.imageUrl);
        if ('missing' in image) warnings.push(`${item.contentValue}: ${image.missing}; a placeholder was drawn`);
        const frame = await renderFrame(chosen.layout, content, 'bytes' in image ? image.bytes : null);
        if (frame.imageError) warnings.push(`${item.contentValue}: ${frame.imageError}; a placeholder was drawn`);
        frames.push(frame);
      }
      const bytes =
        job.assetExportType === 'gif'
          ? await encodeGif(frames, GIF_FRAME_MS)
          : job.assetExportType === 'mp4'
            ? await encodeMp4(frames, dir)
            : await encodeStill(frames[0], job.assetExportType);
      const { offset } = await zip.add(asset.fileName, bytes);
      let previewPath: string | undefined;
      if (storePreview) {
        // Preview and mp4 exports keep each creative on its own too: the content map read shows a preview export's,
        // ad serving an mp4 export's (the MediaFile of a VAST ad). A full png export's stills are served out of its zip.
        previewPath = `${folderOf(job.objectPath)}/files/${asset.fileName}`;
        storePreview(accountKey(accountId, previewPath), bytes, job.assetExportType === 'mp4' ? 'video/mp4' : 'image/png');
      }
      const unique = [...new Set(warnings)];
      return {
        entry: {
          ...base,
          fileName: asset.fileName,
          bytes: bytes.length,
          zipOffset: offset,
          status: 'COMPLETED',
          ...(previewPath ? { previewPath } : {}),
          ...(job.assetExportType === 'mp4' ? { durationSeconds: frames.length * VIDEO_SECONDS_PER_FRAME } : {}),
          ...(unique.length ? { warnings: unique } : {}),
        },
        drawn: true,
      };
    } catch (error) {
      logger.warn({ err: error, placementId: asset.placementId }, 'export asset failed');
      return { entry: { ...base, fileName: '', bytes: 0, status: 'FAILED', error: error instanceof Error ? error.message : String(error) }, drawn: false };
    }
  }

  return {
    kind: EXPORT_JOB_KIND,

    async run(request, sink) {
      const { accountId, queueId, payload } = request;
      const peers = peersFor(request);
      const work = await peers
        .contentCreative()
        .work(accountId, queueId)
        .catch((error: unknown) => {
          // An export content-creative does not know (or no longer has) cannot succeed on a retry.
          if (error instanceof AppError && error.status === 404) throw new JobFailed(`Export ${queueId} is not known: ${error.message}`);
          throw error;
        });
      if (work.status === 'COMPLETED') return { totalItems: 0, totalProcessed: 0, message: 'The export had already completed.' };
      if (work.status === 'FAILED' || work.status === 'FAILED_TO_INITIATE') throw new JobFailed('The export had already failed.');
      // Refusals at intake, before PROCESSING: content-creative stores them as FAILED_TO_INITIATE.
      if (work.campaignStatus !== 'ACTIVE')
        throw new JobFailed(`The campaign is ${work.campaignStatus} since the export started; only an ACTIVE campaign is exported.`);
      if (work.items.length > EXPORT_LIMITS.maxAssets)
        throw new JobFailed(`The campaign maps more than ${EXPORT_LIMITS.maxAssets} creatives; export fewer placements or content items.`);
      if (work.items.length === 0) throw new JobFailed('The campaign has no content mapped to placements of its media plans: nothing to export.');

      const template = work.templateIdx === null ? undefined : await peers.templates().layouts(accountId, work.templateIdx);
      const assets = planAssets(work.items, payload.assetExportType, payload.resolution, isCarousel(template), EXPORT_LIMITS.maxFrames);
      const dir = await mkdtemp(join(deps.tmpDir ?? tmpdir(), 'export-'));
      // PROCESSING is recorded while the first creatives are drawn: the lanes stop if it fails, and no later
      // report (progress or outcome) goes out before it.
      let stopDrawing = false;
      const processing = peers
        .contentCreative()
        .record(accountId, queueId, { status: 'PROCESSING', statusMessage: '', totalItems: assets.length })
        .then(() => sink.progress(0, assets.length, `Rendering ${assets.length} creatives`));
      void processing.catch(() => {
        stopDrawing = true;
      });
      const zip = openExportZip(store, accountKey(accountId, payload.objectPath), new Date(work.createdAt));
      let stored = false;
      try {
        const results: { entry: ExportManifestAsset; drawn: boolean }[] = new Array(assets.length);
        // A product shown on several placements is fetched once: creatives are drawn product by product
        // (the manifest keeps the plan's order), so a few recent images are all a cache needs to hold.
        const fetched = new Map<string, Promise<ProductImage>>();
        const loadImage = (url: string | null) => {
          if (url === null) return images.load(accountId, null);
          let image = fetched.get(url);
          if (!image) {
            if (fetched.size >= IMAGE_CACHE_ENTRIES) fetched.delete(fetched.keys().next().value as string);
            fetched.set(url, (image = images.load(accountId, url)));
          }
          return image;
        };
        const productOf = (asset: PlannedAsset) => asset.items[0]?.contentValue ?? '';
        const order = assets
          .map((_, index) => index)
          .sort((a, b) => (productOf(assets[a]) < productOf(assets[b]) ? -1 : productOf(assets[a]) > productOf(assets[b]) ? 1 : a - b));
        // A preview export's files (the content map's previews) and an mp4 export's (VAST MediaFiles) also go to
        // the store on their own, beside the drawing rather than in its way: a few puts in flight, all settled
        // before the export completes. Other exports are one object, their zip (ad serving reads a full png
        // export's stills out of it by their offsets).
        const previews = boundedQueue(PREVIEW_PUTS_IN_FLIGHT);
        const storePreview =
          work.isPreview || payload.assetExportType === 'mp4'
            ? (key: string, bytes: Buffer, contentType: string) =>
                previews.add(async () => {
                  await store.putObject(key, bytes, { size: bytes.length, contentType });
                })
            : undefined;
        // The fetch of an image is latency, not work: the next creatives' images are asked for while the lanes draw.
        const prefetch = (from: number) => {
          for (let ahead = from; ahead < Math.min(from + IMAGE_LOOKAHEAD, assets.length); ahead++) {
            const url = creativeContentOf(assets[order[ahead]].items[0]?.row ?? null, productOf(assets[order[ahead]])).imageUrl;
            if (url !== null) void loadImage(url);
          }
        };
        let next = 0;
        let done = 0;
        let reportedAt = Date.now();
        const lane = async () => {
          while (next < assets.length && !stopDrawing) {
            const index = order[next++];
            prefetch(next);
            results[index] = await drawAsset(accountId, assets[index], payload, template, dir, loadImage, zip, storePreview);
            done++;
            if (done < assets.length && Date.now() - reportedAt >= PROGRESS_EVERY_MS) {
              reportedAt = Date.now();
              await processing;
              await sink.progress(done, assets.length, `Rendered ${done} of ${assets.length} creatives`);
            }
          }
        };
        await Promise.all(Array.from({ length: Math.min(concurrency, assets.length) }, lane));
        await processing;
        await previews.settled();

        const manifest: ExportManifest = {
          queueId,
          retailCampaignId: work.retailCampaignId,
          campaignName: work.campaignName,
          assetExportType: payload.assetExportType,
          resolution: payload.resolution,
          ...(work.isPreview ? { isPreview: true } : {}),
          createdAt: work.createdAt,
          assets: results.map((r) => r.entry),
        };
        const manifestJson = JSON.stringify(manifest, null, 2);
        await zip.finish(manifestJson);
        stored = true;
        const files = results.filter((r) => r.drawn);

        const failed = results.length - files.length;
        const degraded = results.filter((r) => r.entry.warnings?.length).length;
        const message = [
          `Rendered ${files.length} of ${results.length} creatives`,
          failed ? `${failed} failed (see the manifest)` : '',
          degraded ? `${degraded} with warnings such as a placeholder for a missing image (see the manifest)` : '',
        ]
          .filter(Boolean)
          .join('; ')
          .concat('.');
        if (files.length === 0) {
          const first = results[0]?.entry.error ?? 'unknown error';
          const reason = `No creative could be drawn: ${first}`;
          await peers.contentCreative().record(accountId, queueId, { status: 'FAILED', statusMessage: reason, manifestJson, totalItems: results.length });
          throw new JobFailed(reason);
        }
        await peers.contentCreative().record(accountId, queueId, { status: 'COMPLETED', statusMessage: message, manifestJson, totalItems: results.length });
        return { totalItems: results.length, totalProcessed: files.length, message };
      } finally {
        // Whatever ends the job, it ends after its PROCESSING report settled (so no outcome can overtake it).
        await processing.catch(() => undefined);
        if (!stored) await zip.abandon(new Error('the export did not finish'));
        await rm(dir, { recursive: true, force: true });
      }
    },

    async failed(request, message) {
      await peersFor(request).contentCreative().record(request.accountId, request.queueId, { status: 'FAILED', statusMessage: message, totalItems: 0 });
    },
  };
}
