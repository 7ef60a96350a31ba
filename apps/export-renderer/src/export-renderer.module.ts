import { SERVICE_ENDPOINTS } from '@contracts/proto';
import { JOB_PROGRESS_STREAM, JOB_REQUEST_STREAM } from '@platform/jobs';
import { DEAD_LETTER_STREAM } from '@platform/nats';
import { createOutboundFetch, parseAllowlist } from '@platform/outbound-fetch';
import { objectStoreFromConfig } from '@platform/s3';
import { resolveKey } from '@platform/secrets';
import type { WorkerSpec } from '@platform/service';
import { exportJob } from './export/export.job';
import { exportRendererConfigSchema, type ExportRendererConfig } from './export-renderer.config';
import { contentCreativePeer } from './peers/content-creative.peer';
import { templatesPeer } from './peers/templates.peer';
import { productImageSource } from './product-images/product-image.source';
import { warmUpRenderer } from './rendering/creative-renderer';

/** The export renderer: draws a campaign's creatives with sharp (ffmpeg for mp4) and packs them into one zip. */
export const exportRenderer: WorkerSpec<ExportRendererConfig> = {
  name: 'export-renderer',
  configSchema: exportRendererConfigSchema,
  streams: [JOB_REQUEST_STREAM, JOB_PROGRESS_STREAM, DEAD_LETTER_STREAM],
  // Rendering is CPU-bound: one export at a time per process, its creatives EXPORT_RENDER_CONCURRENCY at once.
  concurrency: 1,
  jobs: async ({ config, logger, connectPeer }) => {
    const store = objectStoreFromConfig(config);
    await store.ensureBucket();
    const principalKey = resolveKey({
      configured: config.INTERNAL_AUTH_KEY,
      nodeEnv: config.NODE_ENV,
      variable: 'INTERNAL_AUTH_KEY',
      warn: (m) => logger.warn(m),
    });
    await warmUpRenderer();
    const contentCreative = connectPeer(SERVICE_ENDPOINTS.contentCreative);
    const templates = connectPeer(SERVICE_ENDPOINTS.templates);
    return [
      exportJob({
        store,
        principalKey,
        contentCreative: (metadata) => contentCreativePeer(contentCreative.as(metadata, 30_000)),
        templates: (metadata) => templatesPeer(templates.as(metadata)),
        images: productImageSource({ store, fetch: createOutboundFetch({ allowlist: parseAllowlist(config.OUTBOUND_ALLOWLIST) }) }),
        tmpDir: config.EXPORT_RENDERER_TMP_DIR,
        concurrency: config.EXPORT_RENDER_CONCURRENCY,
        logger,
      }),
    ];
  },
};
