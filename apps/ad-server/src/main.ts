import { openProcessShell } from '@platform/service';
import { adServerConfigSchema } from './ad-server.config';
import { startAdServer } from './ad-server.module';

/** The ad server: stateless, answering the serving paths generated tags point at, from in-memory snapshots. */
async function main(): Promise<void> {
  const shell = openProcessShell('ad-server', adServerConfigSchema, {});
  if (!shell) return;
  const { config, logger, lifecycle } = shell;
  try {
    const adServer = await startAdServer(config, logger);
    lifecycle.onDrain('http', () => adServer.drain());
    lifecycle.onClose('connections', () => adServer.close());
    lifecycle.markReady();
    logger.info({ port: adServer.port, campaigns: adServer.snapshots.size }, 'ad-server ready');
  } catch (error) {
    shell.failStart(error);
  }
}

void main();
