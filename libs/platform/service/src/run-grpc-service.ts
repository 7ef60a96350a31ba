import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import type { AddressInfo } from 'node:net';
import type { Lifecycle } from '@platform/lifecycle';
import { migrateOwnSchema } from '@platform/mysql';
import { serveMetrics } from '@platform/telemetry';
import { serviceMigrations, startGrpcService, type GrpcServiceSpec, type RunningGrpcService } from './grpc-service';
import { openProcessShell, type ProcessOptions } from './process-shell';
import type { GrpcServiceConfig } from './service.config';

export type RunGrpcServiceOptions = ProcessOptions;

export interface GrpcServiceProcess {
  service: RunningGrpcService;
  lifecycle: Lifecycle;
  /** Where /metrics answers, when METRICS_PORT was set. */
  metricsPort?: number;
}

/**
 * A service's whole main(): config, logger, lifecycle with signal handlers, startGrpcService, and
 * the shutdown order (not ready, then drain gRPC and the outbox, then close NATS and the database).
 * Logs `<name> ready` with the port once it serves; startup failures log and exit with 1. Resolves
 * with the running parts, or undefined when starting failed. With SCHEMA_MIGRATIONS=only it migrates
 * the service's schema and exits (0, or 1 on failure) without serving.
 */
export async function runGrpcService<C extends GrpcServiceConfig, I extends UntypedServiceImplementation>(
  spec: GrpcServiceSpec<C, I>,
  options: RunGrpcServiceOptions = {},
): Promise<GrpcServiceProcess | undefined> {
  const shell = openProcessShell(spec.name, spec.configSchema, options);
  if (!shell) return undefined;
  const { config, logger, lifecycle } = shell;
  if (config.SCHEMA_MIGRATIONS === 'only') {
    await shell.runToCompletion('schema migrations', () =>
      migrateOwnSchema({ env: config, base: spec.database.base, migrations: serviceMigrations(spec), logger }),
    );
    return undefined;
  }

  let service: RunningGrpcService;
  try {
    service = await startGrpcService(config, logger, spec);
  } catch (error) {
    shell.failStart(error);
    return undefined;
  }
  let metricsPort: number | undefined;
  if (config.METRICS_PORT !== undefined) {
    try {
      const metrics = await serveMetrics(config.GRPC_HOST, config.METRICS_PORT);
      metricsPort = (metrics.address() as AddressInfo).port;
      lifecycle.onClose('metrics', async () => void metrics.close());
    } catch (error) {
      await service.close();
      shell.failStart(error);
      return undefined;
    }
  }
  lifecycle.onNotReady(() => service.setServing(false));
  lifecycle.onDrain('grpc', () => service.drain());
  lifecycle.onClose('connections', () => service.close());
  lifecycle.markReady();
  logger.info({ grpcPort: service.grpcPort, metricsPort }, `${spec.name} ready`);
  return { service, lifecycle, metricsPort };
}
