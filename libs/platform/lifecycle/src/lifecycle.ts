import type { Logger } from '@platform/logging';
import { runHooksInParallel, runHooksInSequence, type NamedHook } from './lifecycle.hooks';
import { DEFAULT_SHUTDOWN_SIGNALS, listenForSignals } from './lifecycle.signals';

export interface LifecycleOptions {
  logger: Logger;
  /**
   * Pause between turning not-ready and draining, so load balancers and Kubernetes endpoints stop
   * sending new work before servers stop accepting it. 0 by default for laptops and tests;
   * deployments behind a load balancer want a few seconds.
   */
  drainDelayMs?: number;
  /** Whole-shutdown budget; past it the process exits with code 1. Below Kubernetes' 30 s grace period by default. */
  shutdownTimeoutMs?: number;
  /** Injectable for tests; process.exit by default. */
  exit?: (code: number) => void;
}

export interface Lifecycle {
  isReady(): boolean;
  /** Call once the process can serve; ignored after shutdown has begun. */
  markReady(): void;
  /** Runs first on shutdown, e.g. to set gRPC health to NOT_SERVING. */
  onNotReady(fn: () => void | Promise<void>): void;
  /** Stops intake and waits for work in flight (server.close, tryShutdown, consumer stop). Drain hooks run in parallel. */
  onDrain(name: string, fn: () => Promise<void>): void;
  /** Releases what drain hooks no longer need (DB pools, NATS). Run in reverse registration order. */
  onClose(name: string, fn: () => Promise<void>): void;
  /** Idempotent: later calls return the shutdown already in progress. Resolves after `exit` was called. */
  shutdown(reason: string): Promise<void>;
  /** Starts shutdown on these signals; returns a function that removes the listeners. */
  installSignalHandlers(signals?: readonly NodeJS.Signals[]): () => void;
}

const DEFAULT_SHUTDOWN_TIMEOUT_MS = 25_000;

/**
 * Graceful shutdown in three phases: stop being ready, drain, close. Close hooks run in reverse
 * registration order because things are registered as they are built: a consumer registered after
 * the DB pool it writes to must be closed before that pool.
 */
export function createLifecycle({
  logger: parentLogger,
  drainDelayMs = 0,
  shutdownTimeoutMs = DEFAULT_SHUTDOWN_TIMEOUT_MS,
  exit = (code) => process.exit(code),
}: LifecycleOptions): Lifecycle {
  const logger = parentLogger.child({ component: 'lifecycle' });
  const notReadyHooks: NamedHook[] = [];
  const drainHooks: NamedHook[] = [];
  const closeHooks: NamedHook[] = [];
  /** `phase:name` of hooks still running, named in the log line if the deadline passes. */
  const pending = new Set<string>();
  let ready = false;
  let shutdownInProgress: Promise<void> | undefined;

  function register(hooks: NamedHook[], hook: NamedHook): void {
    if (shutdownInProgress) logger.warn({ hook: hook.name }, 'hook registered after shutdown began; it may not run');
    hooks.push(hook);
  }

  async function runPhases(): Promise<void> {
    await runHooksInParallel(logger, 'not-ready', notReadyHooks, pending);
    if (drainDelayMs > 0) {
      logger.info({ drainDelayMs }, 'not ready; waiting before draining so traffic moves away');
      await new Promise((resolve) => setTimeout(resolve, drainDelayMs));
    }
    await runHooksInParallel(logger, 'drain', drainHooks, pending);
    await runHooksInSequence(logger, 'close', [...closeHooks].reverse(), pending);
  }

  async function shutdownWithinDeadline(reason: string): Promise<void> {
    const startedAt = Date.now();
    logger.info({ reason, drainDelayMs, shutdownTimeoutMs }, 'shutdown started');
    let deadline: NodeJS.Timeout | undefined;
    // Deliberately not unref'd: if a hook hangs with nothing else pending, this timer is what ends the process.
    const timedOut = new Promise<'timed-out'>((resolve) => {
      deadline = setTimeout(() => resolve('timed-out'), shutdownTimeoutMs);
    });
    const outcome = await Promise.race([runPhases().then(() => 'finished' as const), timedOut]);
    clearTimeout(deadline);

    if (outcome === 'timed-out') {
      logger.error({ reason, shutdownTimeoutMs, pending: [...pending] }, 'shutdown timed out; forcing exit');
      exit(1);
      return;
    }
    logger.info({ reason, ms: Date.now() - startedAt }, 'shutdown complete');
    exit(0);
  }

  function shutdown(reason: string): Promise<void> {
    if (shutdownInProgress) {
      logger.info({ reason }, 'shutdown already in progress');
      return shutdownInProgress;
    }
    // Synchronously, before any await: a readiness probe arriving during the first hook must already fail.
    ready = false;
    shutdownInProgress = shutdownWithinDeadline(reason);
    return shutdownInProgress;
  }

  return {
    isReady: () => ready,
    markReady: () => {
      if (shutdownInProgress) return;
      ready = true;
      logger.info('ready');
    },
    onNotReady: (fn) => register(notReadyHooks, { name: `not-ready#${notReadyHooks.length + 1}`, run: fn }),
    onDrain: (name, fn) => register(drainHooks, { name, run: fn }),
    onClose: (name, fn) => register(closeHooks, { name, run: fn }),
    shutdown,
    installSignalHandlers: (signals = DEFAULT_SHUTDOWN_SIGNALS) =>
      listenForSignals(signals, (signal) => {
        shutdown(`signal ${signal}`).catch((error: unknown) => logger.fatal({ err: error }, 'shutdown failed'));
      }),
  };
}
