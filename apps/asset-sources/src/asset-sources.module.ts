import { assetSourcesV1 as v1, SERVICE_ENDPOINTS } from '@contracts/proto';
import { adaptPeer } from '@platform/grpc';
import { secretBoxFromConfig } from '@platform/secrets';
import { startPeriodicTask, type GrpcServiceSpec } from '@platform/service';
import { assetSourcesConfigSchema, type AssetSourcesConfig } from './asset-sources.config';
import { assetSourcesGrpc } from './asset-sources.grpc';
import { createAssetSourcesServices } from './asset-sources.services';
import { ASSET_SOURCES_MIGRATIONS } from './migrations';
import { contentCreativePeer } from './peers/content-creative.peer';
import { storageLibraryPeer } from './peers/storage-library.peer';

/** What is particular to asset-sources; @platform/service runs it like every other service. */
export const assetSourcesService: GrpcServiceSpec<AssetSourcesConfig, v1.AssetSourcesServiceServer> = {
  name: 'asset-sources',
  configSchema: assetSourcesConfigSchema,
  database: { base: 'asset_sources', migrations: ASSET_SOURCES_MIGRATIONS },
  definition: v1.AssetSourcesServiceService,
  implementation: ({ config, logger, guard, db, events, connectPeer, runInBackground }) => {
    const services = createAssetSourcesServices({
      db,
      logger,
      remote: { allowlist: config.OUTBOUND_ALLOWLIST, timeoutMs: config.REMOTE_FETCH_TIMEOUT_MS, maxBytes: config.REMOTE_FETCH_MAX_BYTES },
      events,
      box: secretBoxFromConfig(config, (m) => logger.warn(m)),
    });
    if (config.RECOMMENDATION_SWEEP_MS > 0) {
      // Recommendation sources fall due by the clock (updateFrequency), not by a request, so a sweep looks for them.
      runInBackground('recommendation sweep', async () =>
        startPeriodicTask({
          intervalMs: config.RECOMMENDATION_SWEEP_MS,
          run: () => services.recommendations.recomputeDue(),
          onError: (error) => logger.warn({ err: error }, 'recommendation sweep failed'),
        }),
      );
    }
    return assetSourcesGrpc({
      logger,
      guard,
      ...services,
      contentCreative: adaptPeer(connectPeer(SERVICE_ENDPOINTS.contentCreative), contentCreativePeer),
      storageLibrary: adaptPeer(connectPeer(SERVICE_ENDPOINTS.storageLibrary), storageLibraryPeer),
    });
  },
};
