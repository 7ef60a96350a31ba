import type { DestinationStream } from 'pino';
import { loadConfig, type z } from '@platform/config';
import { createLifecycle, type Lifecycle } from '@platform/lifecycle';
import { createLogger, type Logger } from '@platform/logging';
import { startTracing } from '@platform/telemetry';

/** How a process main is run; a test passes its own env, exit and log destination. */
export interface ProcessOptions {
  /** process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** process.exit by default; a test passes its own to see the exit code. */
  exit?: (code: number) => void;
  /** Where log lines go; stdout by default. */
  logDestination?: DestinationStream;
}

/** The config fields the shell itself reads. */
interface ShellConfig {
  LOG_LEVEL: string;
  SHUTDOWN_DRAIN_DELAY_MS: number;
  SHUTDOWN_TIMEOUT_MS: number;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
}

export interface ProcessShell<C> {
  config: C;
  logger: Logger;
  lifecycle: Lifecycle;
  exit: (code: number) => void;
  /** For a start-up that fails: logs why, takes the signal handlers off and exits with 1. */
  failStart(error: unknown): void;
  /** For a process run to do one task and stop (SCHEMA_MIGRATIONS=only): exits 0 when it is done, 1 when it fails. */
  runToCompletion(task: string, work: () => Promise<void>): Promise<void>;
}

/**
 * What every process main begins with, services and workers alike: the config (an invalid one is
 * reported and exits 1 before anything starts), the logger at its level, the lifecycle with its
 * signal handlers, and tracing (OTEL_EXPORTER_OTLP_ENDPOINT). Undefined when the config failed.
 */
export function openProcessShell<C extends ShellConfig>(
  name: string,
  configSchema: z.ZodType<C>,
  { env = process.env, exit = (code) => process.exit(code), logDestination }: ProcessOptions,
): ProcessShell<C> | undefined {
  let config: C;
  try {
    // loadConfig reports every invalid variable at once; its signature wants the object schema.
    config = loadConfig(configSchema as unknown as z.ZodObject, env) as C;
  } catch (error) {
    // There is no logger yet: its level is part of the config that failed.
    console.error(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    exit(1);
    return undefined;
  }
  const logger = createLogger({ service: name, level: config.LOG_LEVEL, destination: logDestination });
  const lifecycle = createLifecycle({ logger, drainDelayMs: config.SHUTDOWN_DRAIN_DELAY_MS, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS, exit });
  const removeSignalHandlers = lifecycle.installSignalHandlers();
  // Close hooks run last-registered first, so this runs after everything else, just before exit:
  // an in-process run (a test) then leaves no listeners behind on the process.
  lifecycle.onClose('signal-handlers', async () => removeSignalHandlers());
  // Registered before the app's own hooks, so it runs after them: the spans of the shutdown go out too.
  const tracing = startTracing({ serviceName: name, otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  lifecycle.onClose('tracing', () => tracing.shutdown());
  return {
    config,
    logger,
    lifecycle,
    exit,
    failStart(error) {
      logger.fatal({ err: error }, `${name} failed to start`);
      removeSignalHandlers();
      void tracing.shutdown();
      exit(1);
    },
    async runToCompletion(task, work) {
      try {
        await work();
        logger.info(`${name}: ${task} done`);
        removeSignalHandlers();
        exit(0);
      } catch (error) {
        logger.fatal({ err: error }, `${name}: ${task} failed`);
        removeSignalHandlers();
        exit(1);
      }
    },
  };
}
