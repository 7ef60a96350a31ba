import { defineProblems } from './problem-entry';

/** Asset sources of every kind, their labels, recommendation events and the retail feed designation. */
export const ASSET_SOURCES_PROBLEMS = defineProblems({
  ASSET_SOURCE_NOT_FOUND: { status: 404, title: 'Asset source not found' },
  ASSET_SOURCE_KIND_MISMATCH: { status: 409, title: 'The asset source is of another kind' },
  ASSET_SOURCE_IN_USE: { status: 409, title: 'The asset source is used by recommendation sources' },
  ASSET_SOURCE_HAS_NO_KEY: { status: 409, title: 'The asset source has no asset key column' },
  RECOMMENDATION_TAKES_NO_EVENTS: { status: 409, title: 'A content recommendation source takes no events' },
  RECOMMENDATION_SOURCE_TOO_LARGE: { status: 409, title: 'The source is too large to recommend from' },
  LABEL_NOT_FOUND: { status: 404, title: 'Label not found' },
  RETAIL_FEED_NOT_SET: { status: 404, title: 'The account has no retail feed source' },
  // A customer's remote source: 424 when it refused or answered something unusable, 502 when it failed.
  REMOTE_SOURCE_REFUSED: { status: 424, title: 'The remote source may not be fetched' },
  REMOTE_SOURCE_MALFORMED: { status: 424, title: 'The remote source answered a malformed body' },
  REMOTE_SOURCE_UNREACHABLE: { status: 502, title: 'The remote source could not be reached', external: true },
  REMOTE_SOURCE_BAD_STATUS: { status: 502, title: 'The remote source answered an error status', external: true },
  // Feed sources: their ingestion runs (queue ids), the health report and the shrink guard.
  FEED_RUN_NOT_FOUND: { status: 404, title: 'Feed run not found' },
  FEED_NOTHING_HELD: { status: 409, title: 'The feed source holds no version awaiting confirmation' },
  FEED_RUN_ENDED: { status: 409, title: 'The feed run has already ended' },
  // A feed: 424 when the customer can fix it in the feed's settings or at the feed's host, 502 when the host failed.
  FEED_REFUSED: { status: 424, title: 'The feed may not be fetched' },
  FEED_AUTH_FAILED: { status: 424, title: "The feed's host refused the credentials" },
  FEED_NOT_FOUND: { status: 424, title: 'The feed was not found at its host' },
  FEED_TOO_LARGE: { status: 424, title: 'The feed is larger than the size cap' },
  FEED_NOT_A_FEED: { status: 424, title: 'The body is not a feed of its content type' },
  FEED_UNREACHABLE: { status: 502, title: "The feed's host could not be reached", external: true },
  FEED_BAD_STATUS: { status: 502, title: "The feed's host answered an error status", external: true },
});
