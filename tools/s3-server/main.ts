import { resolve } from 'node:path';
import { commonFields, loadConfig, port, s3Fields, z } from '@platform/config';
import { createLogger } from '@platform/logging';
import { startEmbeddedS3 } from '@platform/s3';

/**
 * The S3-compatible server `npm start` runs when S3_ENDPOINT is unset: plain files under S3_DATA_DIR,
 * requests signed with S3_ACCESS_KEY / S3_SECRET_KEY (the same defaults the services use).
 */
const config = loadConfig(
  z.object({
    ...commonFields,
    S3_ACCESS_KEY: s3Fields.S3_ACCESS_KEY,
    S3_SECRET_KEY: s3Fields.S3_SECRET_KEY,
    S3_EMBEDDED_HOST: z.string().default('127.0.0.1'),
    S3_EMBEDDED_PORT: port(9000),
    S3_DATA_DIR: z.string().min(1).default('.data/s3'),
  }),
);
const logger = createLogger({ service: 's3-server', level: config.LOG_LEVEL });

async function main(): Promise<void> {
  const directory = resolve(config.S3_DATA_DIR);
  const server = await startEmbeddedS3({
    host: config.S3_EMBEDDED_HOST,
    port: config.S3_EMBEDDED_PORT,
    directory,
    accessKey: config.S3_ACCESS_KEY,
    secretKey: config.S3_SECRET_KEY,
    onError: (error) => logger.error({ err: error }, 'embedded S3 request failed'),
  });
  logger.info({ endpoint: server.endpoint, directory }, 'embedded S3 server listening');

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'embedded S3 server stopping');
    // A client holding a request open must not keep the process alive past a launcher's patience.
    setTimeout(() => {
      logger.warn('embedded S3 server close timed out; exiting');
      process.exit(1);
    }, 5000).unref();
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'embedded S3 server did not close cleanly');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, 'embedded S3 server failed to start');
  process.exit(1);
});
