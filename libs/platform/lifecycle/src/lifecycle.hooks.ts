import type { Logger } from '@platform/logging';

export type ShutdownPhase = 'not-ready' | 'drain' | 'close';

export interface NamedHook {
  name: string;
  run: () => void | Promise<void>;
}

/**
 * Runs one hook, logging its outcome and duration. Never throws: one component failing to stop
 * must not keep the others (a DB pool, a NATS connection) from being closed.
 */
export async function runHook(logger: Logger, phase: ShutdownPhase, hook: NamedHook, pending: Set<string>): Promise<void> {
  const label = `${phase}:${hook.name}`;
  const startedAt = Date.now();
  pending.add(label);
  try {
    await hook.run();
    logger.info({ phase, hook: hook.name, ms: Date.now() - startedAt }, 'shutdown hook finished');
  } catch (error) {
    logger.error({ phase, hook: hook.name, ms: Date.now() - startedAt, err: error }, 'shutdown hook failed');
  } finally {
    pending.delete(label);
  }
}

/** All at once: stopping servers and consumers are independent, and each may wait for work in flight. */
export async function runHooksInParallel(logger: Logger, phase: ShutdownPhase, hooks: readonly NamedHook[], pending: Set<string>): Promise<void> {
  await Promise.all(hooks.map((hook) => runHook(logger, phase, hook, pending)));
}

/** One after another, in the order given. */
export async function runHooksInSequence(logger: Logger, phase: ShutdownPhase, hooks: readonly NamedHook[], pending: Set<string>): Promise<void> {
  for (const hook of hooks) await runHook(logger, phase, hook, pending);
}
