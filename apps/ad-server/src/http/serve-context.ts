import type { ConsentDecider } from '../consent';
import type { Logger } from '@platform/logging';
import type { DeliveryPublisher } from '../events/delivery-publisher';
import type { ServeUrls } from '../render/serve-urls';
import type { SnapshotCache } from '../snapshot/snapshot.cache';

/** Everything a serving handler reads; built once per process. */
export interface ServeContext {
  snapshots: SnapshotCache;
  urls: ServeUrls;
  events: DeliveryPublisher;
  logger: Logger;
  /** Whether the request may be served personalized, and why (the explain answer says it). */
  consent: ConsentDecider;
  /** Expands the cache-buster macros of a third-party tracker URL, a fresh value per call. */
  expandTracker(url: string): string;
  /** Fires a third-party tracker from the server (click trackers), through the outbound fetch guard; never throws. */
  fireTracker(url: string): void;
}

/** What a handler answers: status, content type and body, and where to redirect. */
export interface ServeAnswer {
  status: number;
  contentType?: string;
  body?: string | Buffer;
  location?: string;
}
