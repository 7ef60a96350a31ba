import { parentPort, workerData } from 'node:worker_threads';
import { failureOf, encodeBatch, type FromParser, type ParseJob, type ToParser } from './feed-parse.protocol';
import { formatRows } from './feed-format';
import { ByteTally } from './feed-text';
import { Inbox } from './inbox';

/**
 * The thread that parses an ingestion's feed (started by parseInWorker): bytes in, rows out, as
 * feed-parse.protocol.ts describes. Parsing is most of the CPU a row costs; here it runs beside the
 * ingestion's own work (checks, the loads' text, the database round trips) on another core.
 */
if (!parentPort) throw new Error('feed-parse.worker runs as a worker thread.');
const port = parentPort;
const { format, config, ahead, chunksAhead } = workerData as ParseJob;
const send = (message: FromParser) => port.postMessage(message);

/** The feed's bytes as they arrive; null once they ended. */
const chunks = new Inbox<Buffer | null>();
let unacknowledged = 0;
let acknowledged: (() => void) | undefined;

port.on('message', (message: ToParser) => {
  if (message.kind === 'ack') {
    unacknowledged--;
    acknowledged?.();
    return;
  }
  chunks.push(message.kind === 'end' ? null : Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength));
});

/** The feed's bytes, asked for `chunksAhead` chunks ahead of the parser. */
async function* feedBytes(): AsyncGenerator<Buffer> {
  for (let i = 0; i < chunksAhead; i++) send({ kind: 'pull' });
  for (;;) {
    const chunk = await chunks.next();
    if (chunk === null) return;
    send({ kind: 'pull' });
    yield chunk;
  }
}

async function parse(): Promise<void> {
  const tally = new ByteTally();
  try {
    for await (const batch of formatRows(feedBytes(), tally, format, config)) {
      send({ kind: 'rows', rows: encodeBatch(batch), config, notUtf8: tally.utf8.firstInvalid });
      unacknowledged++;
      while (unacknowledged >= ahead) await new Promise<void>((resolve) => (acknowledged = resolve));
    }
    send({ kind: 'done', contentHash: tally.hex(), config, notUtf8: tally.utf8.firstInvalid });
  } catch (error) {
    send({ kind: 'failed', failure: failureOf(error) });
  } finally {
    port.close();
  }
}

void parse();
