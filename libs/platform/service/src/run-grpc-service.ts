import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import type { DestinationStream } from 'pino';
import { loadConfig, type z } from '@platform/config';
import { createLifecycle, type Lifecycle } from '@platform/lifecycle';
import { createLogger } from '@platform/logging';
import { startGrpcService, type GrpcServiceSpec, type RunningGrpcService } from './grpc-service';
import type { GrpcServiceConfig } from './service.config';

export interface RunGrpcServiceOptions {
  /** process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** process.exit by default; a test passes its own to see the exit code. */
  exit?: (code: number) => void;
  /** Where log lines go; stdout by default. */
  logDestination?: DestinationStream;
}

export interface GrpcServiceProcess {
  service: RunningGrpcService;
  lifecycle: Lifecycle;
}

/**
 * A service's whole main(): config, logger, lifecycle with signal handlers, startGrpcService, and
 * the shutdown order (not ready, then drain gRPC and the outbox, then close NATS and the database).
 * Logs `<name> ready` with the port once it serves; startup failures log and exit with 1. Resolves
 * with the running parts, or undefined when starting failed.
 */
export async function runGrpcService<C extends GrpcServiceConfig, I extends UntypedServiceImplementation>(
  spec: GrpcServiceSpec<C, I>,
  { env = process.env, exit = (code) => process.exit(code), logDestination }: RunGrpcServiceOptions = {},
): Promise<GrpcServiceProcess | undefined> {
  let config: C;
  try {
    // loadConfig reports every invalid variable at once; its signature wants the object schema.
    config = loadConfig(spec.configSchema as unknown as z.ZodObject, env) as C;
  } catch (error) {
    // There is no logger yet: its level is part of the config that failed.
    console.error(`${spec.name}: ${error instanceof Error ? error.message : String(error)}`);
    exit(1);
    return undefined;
  }

  const logger = createLogger({ service: spec.name, level: config.LOG_LEVEL, destination: logDestination });
  const lifecycle = createLifecycle({ logger, drainDelayMs: config.SHUTDOWN_DRAIN_DELAY_MS, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS, exit });
  const removeSignalHandlers = lifecycle.installSignalHandlers();
  // Close hooks run last-registered first, so this runs after everything else, just before exit:
  // an in-process run (a test) then leaves no listeners behind on the process.
  lifecycle.onClose('signal-handlers', async () => removeSignalHandlers());

  let service: RunningGrpcService;
  try {
    service = await startGrpcService(config, logger, spec);
  } catch (error) {
    logger.fatal({ err: error }, `${spec.name} failed to start`);
    removeSignalHandlers();
    exit(1);
    return undefined;
  }
  lifecycle.onNotReady(() => service.setServing(false));
  lifecycle.onDrain('grpc', () => service.drain());
  lifecycle.onClose('connections', () => service.close());
  lifecycle.markReady();
  logger.info({ grpcPort: service.grpcPort }, `${spec.name} ready`);
  return { service, lifecycle };
}
