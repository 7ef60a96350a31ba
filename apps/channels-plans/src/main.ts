import { createLifecycle } from '@platform/lifecycle';
import { createLogger } from '@platform/logging';
import { loadChannelsPlansConfig } from './channels-plans.config';
import { startChannelsPlans } from './channels-plans.module';

async function main(): Promise<void> {
  const config = loadChannelsPlansConfig();
  const logger = createLogger({ service: 'channels-plans', level: config.LOG_LEVEL });
  const lifecycle = createLifecycle({ logger, drainDelayMs: config.SHUTDOWN_DRAIN_DELAY_MS, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS });
  lifecycle.installSignalHandlers();

  const module = await startChannelsPlans(config, logger);
  lifecycle.onNotReady(() => module.setServing(false));
  lifecycle.onDrain('grpc', () => module.drain());
  lifecycle.onClose('connections', () => module.close());
  lifecycle.markReady();
  logger.info({ grpcPort: module.grpcPort }, 'channels-plans ready');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
