import { createLifecycle } from '@platform/lifecycle';
import { createLogger } from '@platform/logging';
import { startTracing } from '@platform/telemetry';
import { loadGatewayConfig } from './gateway.config';
import { migrateOwnSchema } from '@platform/mysql';
import { GATEWAY_SCHEMA, startGateway } from './gateway.module';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
  const lifecycle = createLifecycle({ logger, drainDelayMs: config.SHUTDOWN_DRAIN_DELAY_MS, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS });
  lifecycle.installSignalHandlers();
  if (config.SCHEMA_MIGRATIONS === 'only') {
    // A release's migration run: migrate the identity schema once, then exit without serving.
    await migrateOwnSchema({ env: config, ...GATEWAY_SCHEMA, logger });
    logger.info('gateway: schema migrations done');
    process.exit(0);
  }
  // Its close hook is registered first, so it runs last: the spans of the drain go out too.
  const tracing = startTracing({ serviceName: 'gateway', otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  lifecycle.onClose('tracing', () => tracing.shutdown());

  const gateway = await startGateway(config, logger);
  lifecycle.onNotReady(() => gateway.setReady(false));
  lifecycle.onDrain('http', () => gateway.drain());
  lifecycle.onClose('connections', () => gateway.close());
  lifecycle.markReady();
  logger.info({ url: `http://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${gateway.port}` }, 'gateway listening');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
