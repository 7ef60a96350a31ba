import { assetSourcesV1 as v1, SERVICE_ENDPOINTS } from '@contracts/proto';
import type { GrpcServiceSpec } from '@platform/service';
import { assetSourcesConfigSchema, type AssetSourcesConfig } from './asset-sources.config';
import { assetSourcesGrpc } from './asset-sources.grpc';
import { createAssetSourcesServices } from './asset-sources.services';
import { ASSET_SOURCES_MIGRATIONS } from './migrations';
import { campaignCheckFor } from './motion-design/campaign-check';
import { libraryFilesLookupFor } from './motion-design/library-files';

/** What is particular to asset-sources; @platform/service runs it like every other service. */
export const assetSourcesService: GrpcServiceSpec<AssetSourcesConfig, v1.AssetSourcesServiceServer> = {
  name: 'asset-sources',
  configSchema: assetSourcesConfigSchema,
  database: { base: 'asset_sources', migrations: ASSET_SOURCES_MIGRATIONS },
  definition: v1.AssetSourcesServiceService,
  implementation: ({ config, logger, guard, db, connectPeer }) => {
    const services = createAssetSourcesServices({
      db,
      logger,
      remote: { allowlist: config.OUTBOUND_ALLOWLIST, timeoutMs: config.REMOTE_FETCH_TIMEOUT_MS, maxBytes: config.REMOTE_FETCH_MAX_BYTES },
    });
    if (config.RECOMMENDATION_SWEEP_MS > 0) {
      // Unref'd: the sweep never holds the process open, and a sweep cut short by shutdown is simply redone on the next start.
      setInterval(() => {
        services.recommendations.recomputeDue().catch((error: unknown) => logger.warn({ err: error }, 'recommendation sweep failed'));
      }, config.RECOMMENDATION_SWEEP_MS).unref();
    }
    const campaignCheck = campaignCheckFor(connectPeer(SERVICE_ENDPOINTS.contentCreative));
    const libraryFiles = libraryFilesLookupFor(connectPeer(SERVICE_ENDPOINTS.storageLibrary));
    return assetSourcesGrpc({
      logger,
      guard,
      ...services,
      motionDesignPeers: (incoming) => ({ campaignExists: campaignCheck(incoming), filesInLibrary: libraryFiles(incoming) }),
    });
  },
};
