/**
 * One problem a client can be answered: the HTTP status it always travels with and the title every
 * answer of that code carries (RFC 9457: the same for every occurrence; the detail says what happened).
 */
export interface ProblemEntry {
  readonly status: number;
  readonly title: string;
  /**
   * A customer's own host failed (their feed or remote source server), not this platform: the answer is
   * still 5xx, but it is logged as a warning without a stack, as nothing here needs mending.
   */
  readonly external?: true;
}

/** Keeps each domain's literal statuses (`as const`) while checking every entry's shape. */
export const defineProblems = <const T extends Record<string, ProblemEntry>>(entries: T): T => entries;
