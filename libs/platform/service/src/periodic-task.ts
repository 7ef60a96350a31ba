import type { BackgroundTask } from './grpc-service';

export interface PeriodicTaskOptions {
  /** Time from the end of one run (or the start) to the next. */
  intervalMs: number;
  run: () => Promise<unknown>;
  /** A failed run is reported here; the next run is still taken. */
  onError: (error: unknown) => void;
}

/**
 * Runs `run` every `intervalMs` as a background task (register it with `runInBackground`). One run
 * at a time: a run that outlasts the interval delays the next instead of overlapping it. stop()
 * takes no further run and waits for the one in progress, so the service drains before its pools
 * close under it. The timer never holds the process open.
 */
export function startPeriodicTask({ intervalMs, run, onError }: PeriodicTaskOptions): BackgroundTask {
  let stopped = false;
  let running: Promise<unknown> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = run()
        .catch(onError)
        .finally(() => {
          running = undefined;
          schedule();
        });
    }, intervalMs);
    timer.unref();
  };
  schedule();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
