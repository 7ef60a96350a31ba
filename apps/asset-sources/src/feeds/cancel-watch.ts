/** How often a running ingestion looks whether it was cancelled (by its owner, or by an update). */
export const CANCEL_CHECK_MS = 1_000;

export interface CancelWatch {
  /** Whether a look found the cancel (once true, stays true). */
  readonly requested: boolean;
  stop(): void;
}

/**
 * Looks every `everyMs` whether the run was cancelled (the request is stamped on the run's row by
 * whichever replica took it) and calls `onCancel` once when it was, so the feed's connection and
 * parser stop at once instead of at the next row. A failed look (the database away a moment) is
 * tried again at the next tick: the run's end is guarded in the database as well.
 */
export function watchForCancel(isRequested: () => Promise<boolean>, onCancel: () => void, everyMs = CANCEL_CHECK_MS): CancelWatch {
  let requested = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const look = async () => {
    const found = await isRequested().catch(() => false);
    if (stopped) return;
    if (found) {
      requested = true;
      onCancel();
      return;
    }
    schedule();
  };
  const schedule = () => {
    timer = setTimeout(() => void look(), everyMs);
    timer.unref();
  };
  schedule();
  return {
    get requested() {
      return requested;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * What a cancelled run says: who cancelled it (its owner, or the update whose run `supersededBy` is)
 * and how far it had got; the rows serving are never touched by it.
 */
export function cancelledMessage(stage: 'before-start' | 'before-served', supersededBy: string | null): string {
  const by = supersededBy === null ? 'Cancelled by the owner' : `Superseded by run ${supersededBy} (an update of the feed's settings)`;
  return `${by} ${stage === 'before-start' ? 'before it started' : 'before this version was served'}. The rows already serving are unchanged.`;
}
