import { setTimeout as sleep } from 'node:timers/promises';
import { startPeriodicTask } from './periodic-task';

/** Waits until `condition` holds (polled), so a slow machine makes the test slower, not red. */
async function eventually(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await sleep(5);
  }
}

describe(startPeriodicTask.name, () => {
  it('runs again after each run, never two at once, and keeps going after a failed run', async () => {
    let runs = 0;
    let inFlight = 0;
    let overlapped = false;
    const errors: unknown[] = [];
    const task = startPeriodicTask({
      intervalMs: 5,
      run: async () => {
        runs++;
        overlapped ||= inFlight > 0;
        inFlight++;
        await sleep(15);
        inFlight--;
        if (runs === 1) throw new Error('first run fails');
      },
      onError: (error) => errors.push(error),
    });
    await eventually(() => runs >= 3);
    await task.stop();
    expect(overlapped).toBe(false);
    expect(errors).toEqual([new Error('first run fails')]);
  });

  it('stop() waits for the run in progress and takes no further run', async () => {
    let started = 0;
    let finished = 0;
    const task = startPeriodicTask({
      intervalMs: 5,
      run: async () => {
        started++;
        await sleep(200);
        finished++;
      },
      onError: () => undefined,
    });
    await eventually(() => started === 1);
    await task.stop();
    expect(finished).toBe(1);
    await sleep(30);
    expect(started).toBe(1);
  });
});
