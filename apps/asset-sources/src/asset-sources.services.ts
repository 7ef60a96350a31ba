import type { Logger } from '@platform/logging';
import type { ServiceDatabase } from '@platform/mysql';
import { createOutboundFetch, parseAllowlist, type OutboundFetch } from '@platform/outbound-fetch';
import type { SecretBox } from '@platform/secrets';
import type { EventOutbox } from '@platform/service';
import { FeedProcessService } from './feeds/feed-process.service';
import { FeedRowsRepository } from './feeds/feed-rows.repository';
import { feedReaderFor, type FeedReadLimits, type FeedTransport } from './feeds/reading';
import { FeedSourceRepository } from './feeds/feed-source.repository';
import { FeedSourceService } from './feeds/feed-source.service';
import { LabelRepository } from './labels/label.repository';
import { LabelService } from './labels/label.service';
import { MotionDesignService } from './motion-design/motion-design.service';
import { RecommendationEventRepository } from './recommendations/recommendation-event.repository';
import { RecommendationService } from './recommendations/recommendation.service';
import { RemoteRows } from './remote/remote-rows';
import { RetailFeedRepository } from './retail-feed/retail-feed.repository';
import { RetailFeedService } from './retail-feed/retail-feed.service';
import { AssetSourceRepository } from './sources/asset-source.repository';
import { AssetSourceService } from './sources/asset-source.service';

export interface AssetSourcesServices {
  assetSources: AssetSourceService;
  labels: LabelService;
  recommendations: RecommendationService;
  motionDesign: MotionDesignService;
  retailFeed: RetailFeedService;
  feedSources: FeedSourceService;
  feedProcess: FeedProcessService;
  /** What the feed-ingest job works with besides the reader. */
  feedStore: { feeds: FeedSourceRepository; rows: FeedRowsRepository };
}

export interface AssetSourcesDeps {
  db: ServiceDatabase;
  logger: Logger;
  /** What remote sources may reach, and how long and how much they may take. */
  remote: { allowlist: string; timeoutMs: number; maxBytes: number; outbound?: OutboundFetch };
  /** Caps of process (36), which reads a feed's head through every transport (the remote allowlist admits test and on-premise hosts). */
  feedProcess?: FeedReadLimits;
  /** Reads feeds named by fileId (asset-library files); without it such feeds are refused. */
  library?: FeedTransport;
  /** Records a feed run's request and Queued event with the change that starts it. */
  events: EventOutbox;
  /** Seals feed credentials at rest (SECRETS_ENCRYPTION_KEY). */
  box: SecretBox;
  now?: () => Date;
  /** Feed runs one account may have queued or running at once; JOB_CONCURRENCY_CAPS when not set. */
  feedRunCap?: number;
  /** Due feed sources a schedule sweep reads at a time; 50 when not set. */
  feedSweepBatch?: number;
}

/** Repositories and services over one database; the gRPC server and the specs build them the same way. */
export function createAssetSourcesServices(deps: AssetSourcesDeps): AssetSourcesServices {
  const repository = new AssetSourceRepository(deps.db);
  const outbound = deps.remote.outbound ?? createOutboundFetch({ allowlist: parseAllowlist(deps.remote.allowlist) });
  const remoteRows = new RemoteRows(deps.db.knex, repository, outbound, { timeoutMs: deps.remote.timeoutMs, maxBytes: deps.remote.maxBytes }, deps.now);
  const assetSources = new AssetSourceService(deps.db.knex, repository, remoteRows, deps.events);
  const feedStore = { feeds: new FeedSourceRepository(deps.db), rows: new FeedRowsRepository(deps.db) };
  const recommendations = new RecommendationService(
    deps.db.knex,
    repository,
    assetSources,
    new RecommendationEventRepository(deps.db),
    deps.logger,
    deps.now,
    async (assetSourceId) => (await feedStore.feeds.get(assetSourceId))?.pendingColumns ?? null,
  );
  assetSources.setDependents(recommendations);
  const feedSources = new FeedSourceService({
    knex: deps.db.knex,
    sources: repository,
    assetSources,
    ...feedStore,
    events: deps.events,
    box: deps.box,
    logger: deps.logger,
    now: deps.now,
    runCap: deps.feedRunCap,
    sweepBatch: deps.feedSweepBatch,
  });
  return {
    assetSources,
    labels: new LabelService(deps.db.knex, new LabelRepository(deps.db), assetSources, deps.events),
    recommendations,
    motionDesign: new MotionDesignService(deps.db.knex, repository, assetSources),
    retailFeed: new RetailFeedService(deps.db.knex, deps.events, new RetailFeedRepository(deps.db), assetSources),
    feedSources,
    feedStore,
    feedProcess: new FeedProcessService(
      feedReaderFor({
        allowlist: parseAllowlist(deps.remote.allowlist),
        limits: deps.feedProcess ?? { maxBytes: deps.remote.maxBytes, timeoutMs: deps.remote.timeoutMs },
        library: deps.library,
      }),
    ),
  };
}
