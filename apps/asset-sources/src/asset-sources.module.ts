import { assetSourcesV1 as v1, SERVICE_ENDPOINTS } from '@contracts/proto';
import { adaptPeer, principalMetadata, workerPrincipal } from '@platform/grpc';
import { JOB_PROGRESS_STREAM, JOB_REQUEST_STREAM, runJobConsumer } from '@platform/jobs';
import { DEAD_LETTER_STREAM } from '@platform/nats';
import { parseAllowlist } from '@platform/outbound-fetch';
import { secretBoxFromConfig } from '@platform/secrets';
import { startPeriodicTask, type GrpcServiceSpec } from '@platform/service';
import { assetSourcesConfigSchema, type AssetSourcesConfig } from './asset-sources.config';
import { assetSourcesGrpc } from './asset-sources.grpc';
import { createAssetSourcesServices } from './asset-sources.services';
import { feedIngestJob } from './feeds/feed-ingest.job';
import { feedReaderFor, libraryTransport, parseInWorker } from './feeds/reading';
import { ASSET_SOURCES_MIGRATIONS } from './migrations';
import { contentCreativePeer } from './peers/content-creative.peer';
import { storageLibraryPeer } from './peers/storage-library.peer';

/** What is particular to asset-sources; @platform/service runs it like every other service. */
export const assetSourcesService: GrpcServiceSpec<AssetSourcesConfig, v1.AssetSourcesServiceServer> = {
  name: 'asset-sources',
  configSchema: assetSourcesConfigSchema,
  database: { base: 'asset_sources', migrations: ASSET_SOURCES_MIGRATIONS },
  // Feed runs are requested (and their Queued state published) through the outbox; the runs report progress.
  streams: [JOB_REQUEST_STREAM, JOB_PROGRESS_STREAM, DEAD_LETTER_STREAM],
  definition: v1.AssetSourcesServiceService,
  implementation: ({ config, logger, guard, principalKey, db, events, nats, names, connectPeer, runInBackground }) => {
    const storageLibrary = adaptPeer(connectPeer(SERVICE_ENDPOINTS.storageLibrary), storageLibraryPeer);
    // Work this service does on no caller's behalf (an ingestion, a scheduled start) calls storage-library
    // as itself, scoped to the one account the work is for; process has already checked its caller's scope.
    const storageLibraryFor = (accountId: number) =>
      storageLibrary({ metadata: principalMetadata(workerPrincipal('asset-sources', '', accountId), principalKey) });
    // Feeds named by fileId are read from the asset library, which storage-library owns.
    const library = libraryTransport((accountId, path, offset, length) => storageLibraryFor(accountId).readLibraryFile(accountId, path, offset, length));
    const services = createAssetSourcesServices({
      db,
      logger,
      remote: { allowlist: config.OUTBOUND_ALLOWLIST, timeoutMs: config.REMOTE_FETCH_TIMEOUT_MS, maxBytes: config.REMOTE_FETCH_MAX_BYTES },
      // Process reads only a feed's head, but a feed too large to ingest is refused there already.
      feedProcess: { maxBytes: config.FEED_INGEST_MAX_BYTES, timeoutMs: config.FEED_PROCESS_TIMEOUT_MS },
      events,
      box: secretBoxFromConfig(config, (m) => logger.warn(m)),
      library,
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
    // Feed ingestion runs here, not in a worker process: only this service writes its schema's rows.
    const reader = feedReaderFor({
      allowlist: parseAllowlist(config.OUTBOUND_ALLOWLIST),
      limits: { maxBytes: config.FEED_INGEST_MAX_BYTES, timeoutMs: config.FEED_INGEST_TIMEOUT_MS, idleTimeoutMs: config.FEED_INGEST_IDLE_TIMEOUT_MS },
      library,
      // A whole feed is parsed on another core than the ingestion's own work.
      parsing: parseInWorker,
    });
    runInBackground('feed ingest', () =>
      runJobConsumer({
        nats,
        names,
        logger,
        durable: 'asset-sources-feed-ingest',
        handler: feedIngestJob({
          db,
          reader,
          ...services.feedStore,
          feedSources: services.feedSources,
          assetSources: services.assetSources,
          logger,
          readRetryDelaysMs: config.FEED_READ_RETRY_DELAYS_MS,
        }),
        concurrency: config.FEED_INGEST_CONCURRENCY,
        ackWaitMs: config.JOB_ACK_WAIT_MS,
      }),
    );
    if (config.FEED_SCHEDULE_SWEEP_MS > 0) {
      // Scheduled feeds fall due by the clock; every replica sweeps, and a claim in the database lets one start each run.
      runInBackground('feed schedule sweep', async () =>
        startPeriodicTask({
          intervalMs: config.FEED_SCHEDULE_SWEEP_MS,
          run: () => services.feedSources.startDueRuns(storageLibraryFor).then(() => undefined),
          onError: (error) => logger.warn({ err: error }, 'feed schedule sweep failed'),
        }),
      );
    }
    return assetSourcesGrpc({
      logger,
      guard,
      ...services,
      contentCreative: adaptPeer(connectPeer(SERVICE_ENDPOINTS.contentCreative), contentCreativePeer),
      storageLibrary,
    });
  },
};
