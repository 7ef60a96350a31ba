import { Writable } from 'node:stream';
import { createLogger } from '@platform/logging';
import { createLifecycle, type LifecycleOptions } from './lifecycle';

type LogLine = Record<string, unknown> & { msg?: string; level?: string };

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A lifecycle with a recording logger and exit, and an event list hooks can append to. */
function buildSut(options: Partial<LifecycleOptions> = {}) {
  const logs: LogLine[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logs.push(JSON.parse(chunk.toString()) as LogLine);
      done();
    },
  });
  const exitCodes: number[] = [];
  const events: string[] = [];
  const sut = createLifecycle({
    logger: createLogger({ service: 'lifecycle-test', destination }),
    exit: (code) => void exitCodes.push(code),
    shutdownTimeoutMs: 2_000,
    ...options,
  });
  return { sut, logs, exitCodes, events };
}

describe(createLifecycle.name, () => {
  it('is not ready until marked ready', () => {
    const { sut } = buildSut();
    expect(sut.isReady()).toBe(false);
    sut.markReady();
    expect(sut.isReady()).toBe(true);
  });

  it('turns not-ready, then drains, then closes in reverse registration order, then exits 0', async () => {
    const { sut, events, exitCodes } = buildSut();
    sut.markReady();
    sut.onClose('db-pool', async () => void events.push('close:db-pool'));
    sut.onDrain('http', async () => void events.push('drain:http'));
    sut.onNotReady(() => void events.push(`not-ready (ready=${sut.isReady()})`));
    sut.onClose('nats', async () => void events.push('close:nats'));
    sut.onDrain('consumer', async () => void events.push('drain:consumer'));
    sut.onClose('s3', async () => void events.push('close:s3'));

    await sut.shutdown('test');

    expect(events).toEqual(['not-ready (ready=false)', 'drain:http', 'drain:consumer', 'close:s3', 'close:nats', 'close:db-pool']);
    expect(exitCodes).toEqual([0]);
    expect(sut.isReady()).toBe(false);
  });

  it('is not ready the moment shutdown is called, before any hook has run', () => {
    const { sut } = buildSut();
    sut.markReady();
    void sut.shutdown('test');
    expect(sut.isReady()).toBe(false);
  });

  it('stays not ready if markReady comes after shutdown began', async () => {
    const { sut } = buildSut();
    const done = sut.shutdown('test');
    sut.markReady();
    expect(sut.isReady()).toBe(false);
    await done;
  });

  it('waits drainDelayMs between turning not-ready and draining', async () => {
    const { sut } = buildSut({ drainDelayMs: 80 });
    let notReadyAt = 0;
    let drainAt = 0;
    sut.onNotReady(() => void (notReadyAt = Date.now()));
    sut.onDrain('http', async () => void (drainAt = Date.now()));
    await sut.shutdown('test');
    // Timers may fire a millisecond early; the point is that the drain did not start right away.
    expect(drainAt - notReadyAt).toBeGreaterThanOrEqual(75);
  });

  it('runs drain hooks in parallel', async () => {
    const { sut, exitCodes } = buildSut({ shutdownTimeoutMs: 500 });
    let releaseFirst!: () => void;
    const secondStarted = new Promise<void>((resolve) => (releaseFirst = resolve));
    // The first hook can only finish once the second has started: sequential draining would time out.
    sut.onDrain('first', () => secondStarted);
    sut.onDrain('second', async () => releaseFirst());
    await sut.shutdown('test');
    expect(exitCodes).toEqual([0]);
  });

  it('starts each close hook only after the previous one finished', async () => {
    const { sut, events } = buildSut();
    sut.onClose('registered-first', async () => void events.push('first:start'));
    sut.onClose('registered-second', async () => {
      events.push('second:start');
      await sleep(30);
      events.push('second:end');
    });
    await sut.shutdown('test');
    expect(events).toEqual(['second:start', 'second:end', 'first:start']);
  });

  it('runs the hooks once however many times shutdown is asked for', async () => {
    const { sut, events, exitCodes, logs } = buildSut();
    sut.onNotReady(() => void events.push('not-ready'));
    sut.onDrain('http', async () => {
      events.push('drain');
      await sleep(20);
    });
    sut.onClose('db', async () => void events.push('close'));

    const first = sut.shutdown('SIGTERM');
    const second = sut.shutdown('SIGINT');
    expect(second).toBe(first);
    await Promise.all([first, second]);
    await sut.shutdown('late');

    expect(events).toEqual(['not-ready', 'drain', 'close']);
    expect(exitCodes).toEqual([0]);
    expect(logs.filter((line) => line.msg === 'shutdown already in progress').map((line) => line['reason'])).toEqual(['SIGINT', 'late']);
  });

  it('forces exit 1 when the shutdown takes longer than shutdownTimeoutMs, naming the hook that hung', async () => {
    const { sut, events, exitCodes, logs } = buildSut({ shutdownTimeoutMs: 50 });
    let unblock!: () => void;
    sut.onDrain('stuck-consumer', () => new Promise<void>((resolve) => (unblock = resolve)));
    sut.onDrain('http', async () => undefined);
    sut.onClose('db', async () => void events.push('close'));

    const startedAt = Date.now();
    await sut.shutdown('test');

    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(45);
    expect(exitCodes).toEqual([1]);
    expect(logs).toContainEqual(expect.objectContaining({ level: 'error', msg: 'shutdown timed out; forcing exit', pending: ['drain:stuck-consumer'] }));

    // If the hung hook finishes afterwards, the already-decided exit code stands.
    unblock();
    await sleep(10);
    expect(exitCodes).toEqual([1]);
  });

  it('counts the drain delay against the timeout', async () => {
    const { sut, exitCodes } = buildSut({ drainDelayMs: 200, shutdownTimeoutMs: 50 });
    await sut.shutdown('test');
    expect(exitCodes).toEqual([1]);
  });

  it('logs a failing hook and carries on with every later step', async () => {
    const { sut, events, exitCodes, logs } = buildSut();
    sut.onNotReady(() => {
      throw new Error('health service gone');
    });
    sut.onNotReady(() => void events.push('not-ready:ok'));
    sut.onDrain('http', async () => {
      throw new Error('server not running');
    });
    sut.onDrain('consumer', async () => void events.push('drain:consumer'));
    sut.onClose('db', async () => void events.push('close:db'));
    sut.onClose('nats', async () => {
      throw new Error('connection already closed');
    });

    await sut.shutdown('test');

    expect(events).toEqual(['not-ready:ok', 'drain:consumer', 'close:db']);
    expect(exitCodes).toEqual([0]);
    const failures = logs.filter((line) => line.msg === 'shutdown hook failed');
    expect(failures.map((line) => [line['phase'], line['hook'], (line['err'] as { message: string }).message])).toEqual([
      ['not-ready', 'not-ready#1', 'health service gone'],
      ['drain', 'http', 'server not running'],
      ['close', 'nats', 'connection already closed'],
    ]);
  });

  it('logs each step with its duration', async () => {
    const { sut, logs } = buildSut();
    sut.onDrain('http', () => sleep(20));
    await sut.shutdown('deploy');
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'shutdown started', reason: 'deploy' }));
    const drained = logs.find((line) => line.msg === 'shutdown hook finished' && line['hook'] === 'http');
    expect(drained?.['ms']).toEqual(expect.any(Number));
    expect(drained?.['ms'] as number).toBeGreaterThanOrEqual(15);
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'shutdown complete', reason: 'deploy', ms: expect.any(Number) }));
  });

  describe('installSignalHandlers', () => {
    /**
     * Calls the listeners Node would call for a signal. Not process.emit: some runners (nx's jest
     * executor among them) replace process.emit, so it does not reach listeners added in the sandbox.
     */
    function deliver(signal: NodeJS.Signals): void {
      for (const listener of process.listeners(signal)) listener(signal);
    }

    it('listens for SIGTERM and SIGINT by default, and removes its listeners when asked', () => {
      const { sut } = buildSut();
      const before = { term: process.listenerCount('SIGTERM'), int: process.listenerCount('SIGINT') };
      const uninstall = sut.installSignalHandlers();
      expect(process.listenerCount('SIGTERM')).toBe(before.term + 1);
      expect(process.listenerCount('SIGINT')).toBe(before.int + 1);
      uninstall();
      expect(process.listenerCount('SIGTERM')).toBe(before.term);
      expect(process.listenerCount('SIGINT')).toBe(before.int);
    });

    it('shuts down once even when the signal arrives twice', async () => {
      const { sut, events, exitCodes, logs } = buildSut();
      sut.onDrain('http', async () => {
        events.push('drain');
        await sleep(20);
      });
      // SIGUSR2 rather than SIGTERM, so nothing else in the test runner listening for SIGTERM reacts.
      const uninstall = sut.installSignalHandlers(['SIGUSR2']);
      try {
        deliver('SIGUSR2');
        deliver('SIGUSR2');
        await sut.shutdown('wait for the one in progress');
      } finally {
        uninstall();
      }
      expect(events).toEqual(['drain']);
      expect(exitCodes).toEqual([0]);
      expect(logs).toContainEqual(expect.objectContaining({ msg: 'shutdown started', reason: 'signal SIGUSR2' }));
    });
  });
});
