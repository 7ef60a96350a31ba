import type { ServiceDatabase } from '@platform/mysql';

/** Requests per subject and window, counted where every gateway replica sees them. */
export interface RateLimitCounter {
  /** Counts `hits` requests (1 by default) of `subject` in window `window`; answers the window's count including them. */
  hit(subject: string, window: number, hits?: number): Promise<number>;
  /** Removes the windows before `window`; answers how many rows went. */
  deleteBefore(window: number, limit: number): Promise<number>;
}

// One statement, one round trip: the new count comes back as the insert id (LAST_INSERT_ID(expr)),
// so there is no read after the write and no transaction to hold.
const HIT = `INSERT INTO rate_limit_windows (subject, window_start, hits) VALUES (?, ?, LAST_INSERT_ID(?))
  ON DUPLICATE KEY UPDATE hits = LAST_INSERT_ID(hits + ?)`;
const DELETE_BEFORE = `DELETE FROM rate_limit_windows WHERE window_start < ? LIMIT ?`;

/** The counter in the gateway's own schema (table `rate_limit_windows`). */
export function createRateLimitCounter(db: ServiceDatabase): RateLimitCounter {
  return {
    hit: async (subject, window, hits = 1) => (await db.write(HIT, [subject, window, hits, hits])).insertId,
    deleteBefore: async (window, limit) => (await db.write(DELETE_BEFORE, [window, limit])).affectedRows,
  };
}
