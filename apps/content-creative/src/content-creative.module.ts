import { DELIVERY_STREAM } from '@contracts/domain';
import { contentCreativeV1 as v1, SERVICE_ENDPOINTS } from '@contracts/proto';
import { adaptPeer, principalMetadata, workerPrincipal } from '@platform/grpc';
import { JOB_PROGRESS_STREAM, JOB_REQUEST_STREAM } from '@platform/jobs';
import { DEAD_LETTER_STREAM } from '@platform/nats';
import { startPeriodicTask, type GrpcServiceSpec } from '@platform/service';
import { contentCreativeConfigSchema, type ContentCreativeConfig } from './content-creative.config';
import { contentCreativeGrpc } from './content-creative.grpc';
import { createContentCreativeServices } from './content-creative.services';
import { DataSignalRepository } from './data-signals/data-signal.repository';
import { DataSignalService } from './data-signals/data-signal.service';
import { startDeliveryCountsConsumer } from './delivery/delivery.consumer';
import { CONTENT_CREATIVE_MIGRATIONS } from './migrations';
import { assetSourcesPeer } from './peers/asset-sources.peer';
import { channelsPlansPeer } from './peers/channels-plans.peer';
import { storageLibraryPeer } from './peers/storage-library.peer';
import { taggingTrackersPeer } from './peers/tagging-trackers.peer';
import { CampaignRepository } from './campaigns/campaign.repository';
import { ContentMapRepository } from './content-maps/content-map.repository';
import { ExportRepository } from './exports/export.repository';
import { startServingRefresher } from './serving/serving-snapshot.refresher';
import { ServingSnapshotService } from './serving/serving-snapshot.service';
import { openServingSnapshotStore } from './serving/serving-snapshot.store';

/** How often counted delivery event ids past their retention are deleted. */
const DELIVERY_PURGE_INTERVAL_MS = 10 * 60_000;

/** What is particular to content-creative; @platform/service runs it like every other service. */
export const contentCreativeService: GrpcServiceSpec<ContentCreativeConfig, v1.ContentCreativeServiceServer> = {
  name: 'content-creative',
  configSchema: contentCreativeConfigSchema,
  database: { base: 'content_creative', migrations: CONTENT_CREATIVE_MIGRATIONS },
  // Export requests (and their Queued reports for the queue view) go out through the outbox; the ad
  // server's delivery events come in and are folded into the daily counts.
  streams: [JOB_REQUEST_STREAM, JOB_PROGRESS_STREAM, DEAD_LETTER_STREAM, DELIVERY_STREAM],
  // The data-signal catalog ships with the code; every start brings the stored one up to date.
  seed: ({ db }) => new DataSignalService(db.knex, new DataSignalRepository(db)).seedCatalog(),
  definition: v1.ContentCreativeServiceService,
  implementation: ({ config, logger, guard, principalKey, db, events, announceViewChange, nats, names, connectPeer, runInBackground }) => {
    const services = createContentCreativeServices({ db, events, announceViewChange, logger });
    const assetSources = adaptPeer(connectPeer(SERVICE_ENDPOINTS.assetSources), assetSourcesPeer);
    const channelsPlans = adaptPeer(connectPeer(SERVICE_ENDPOINTS.channelsPlans), channelsPlansPeer);
    const taggingTrackers = adaptPeer(connectPeer(SERVICE_ENDPOINTS.taggingTrackers), taggingTrackersPeer);
    runInBackground('delivery counts', () => startDeliveryCountsConsumer({ nats, names, logger, delivery: services.delivery }));
    runInBackground('delivery ids purge', async () =>
      startPeriodicTask({
        intervalMs: DELIVERY_PURGE_INTERVAL_MS,
        run: () => services.delivery.purgeSeen(),
        onError: (err) => logger.error({ err }, 'purging counted delivery event ids failed'),
      }),
    );
    // Serving snapshots are compiled on no caller's behalf: the service calls its peers as itself, scoped to the one account compiled.
    runInBackground('serving snapshots', async () => {
      const snapshots = new ServingSnapshotService(
        new ContentMapRepository(db),
        new ExportRepository(db),
        new CampaignRepository(db),
        await openServingSnapshotStore(nats, names),
        logger.child({ component: 'serving-snapshot' }),
      );
      return startServingRefresher({
        nats,
        names,
        logger,
        snapshots,
        peersFor: (accountId) => {
          const as = { metadata: principalMetadata(workerPrincipal('content-creative', '', accountId), principalKey) };
          return { channels: channelsPlans(as), assets: assetSources(as), trackers: taggingTrackers(as) };
        },
        debounceMs: config.SERVING_SNAPSHOT_DEBOUNCE_MS,
        sweepMs: config.SERVING_SNAPSHOT_SWEEP_MS,
      });
    });
    return contentCreativeGrpc({
      logger,
      guard,
      ...services,
      assetSources,
      channelsPlans,
      storageLibrary: adaptPeer(connectPeer(SERVICE_ENDPOINTS.storageLibrary), storageLibraryPeer),
    });
  },
};
