import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { DaemonProcess, pollUntil } from './daemon-process';
import { NATS_SERVER, requireTool } from './external-tools';
import { freePortBlock } from './processes';

export interface PrivateNats {
  /** What NATS_URL takes. */
  url: string;
  port: number;
  /** The daemon, to stop, start, kill, pause and resume by the pid the harness started. */
  server: DaemonProcess;
  /** Stops the server and removes its JetStream store. */
  close(): Promise<void>;
}

/**
 * A NATS server of the test's own: the machine's nats-server with JetStream, its own port and a
 * store directory under the temp dir that survives its restarts (streams and consumers are on file,
 * as in production). Fault tests stop and kill it; the machine's own NATS is never touched.
 */
export async function startPrivateNats(tag: string): Promise<PrivateNats> {
  const natsServer = requireTool(NATS_SERVER);
  const directory = mkdtempSync(join(tmpdir(), `nats-${tag}-`));
  const port = await freePortBlock(1);
  const url = `nats://127.0.0.1:${port}`;
  const server = new DaemonProcess({
    name: 'nats-server',
    command: natsServer,
    // No config file: nothing of the machine's own server (its port, its store) applies.
    args: ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', join(directory, 'jetstream'), '-n', `private-${tag}`],
    logFile: join(directory, 'nats-server.log'),
    waitUntilReady: (daemon) =>
      pollUntil(async () => {
        const nc = await connect({ servers: url, timeout: 1000, reconnect: false });
        try {
          // JetStream answers only once it has recovered its streams from the store.
          await (await nc.jetstreamManager()).getAccountInfo();
          return true;
        } finally {
          await nc.close();
        }
      }, daemon),
  });
  try {
    await server.start();
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    port,
    server,
    close: async () => {
      await server.stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
