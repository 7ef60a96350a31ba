/** Quiet time before a timed run, so that what the previous run left behind (a process exiting, deferred work, the last writes) is charged to neither. */
export const SETTLE_MS = 1_500;

export const settle = () => new Promise<void>((resolve) => setTimeout(resolve, SETTLE_MS));
