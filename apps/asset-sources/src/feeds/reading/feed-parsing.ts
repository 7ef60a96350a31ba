import { startModuleWorker } from '@platform/service';
import type { FeedConfig, FeedFormat, FeedRowBatch } from '../feed-reading';
import { feedNotAFeed } from './feed-errors';
import { formatRows } from './feed-format';
import { decodeBatch, errorOf, type FromParser, type NotUtf8, type ParseJob, type ToParser } from './feed-parse.protocol';
import { ByteTally } from './feed-text';
import { Inbox } from './inbox';

/** A feed's rows as they are parsed, and the sha256 of its bytes once they all were. */
export interface ParsedFeed {
  batches: AsyncIterable<FeedRowBatch>;
  contentHash(): string;
  /** Where the bytes of a feed read as UTF-8 first are not, as far as they were read; null while they are. */
  notUtf8(): NotUtf8;
}

/** Where a feed's bytes are parsed: `config` takes what is detected from the head as it is. */
export type FeedParsing = (body: AsyncIterable<Buffer>, format: FeedFormat, config: FeedConfig) => ParsedFeed;

/** In the calling thread: for the head of a feed (process), where a thread's start would cost more than the parse. */
export const parseHere: FeedParsing = (body, format, config) => {
  const tally = new ByteTally();
  return { batches: formatRows(body, tally, format, config), contentHash: () => tally.hex(), notUtf8: () => tally.utf8.firstInvalid };
};

/** Batches the parser thread may have ready before the ingestion takes one... */
const BATCHES_AHEAD = 4;
/** ...and chunks of bytes it asks for ahead of its parser. */
const CHUNKS_AHEAD = 4;
/**
 * The parser thread's own heap: a few batches and the parsers' buffers. A feed that would need more (a
 * field without end) ends that thread, and the run fails, instead of the service's heap.
 */
const PARSER_RESOURCE_LIMITS = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 };

/**
 * In a thread of its own (feed-parse.worker.ts), for a whole feed (ingestion): parsing, about half the
 * CPU a row costs, then runs on another core beside the ingestion's checks and database writes. The
 * bytes are read here (the transports and their guard stay in the service) and sent a chunk at a
 * time as the thread asks; rows come back a batch at a time. The thread starts when the first batch is
 * asked for, and ends with the batches: read to the end, failed, or left.
 */
export const parseInWorker: FeedParsing = (body, format, config) => {
  let contentHash: string | undefined;
  let notUtf8: NotUtf8 = null;
  async function* batches(): AsyncGenerator<FeedRowBatch> {
    const job: ParseJob = { format, config, ahead: BATCHES_AHEAD, chunksAhead: CHUNKS_AHEAD };
    const worker = startModuleWorker(__dirname, 'feed-parse.worker', { workerData: job, resourceLimits: PARSER_RESOURCE_LIMITS });
    const inbox = new Inbox<Exclude<FromParser, { kind: 'pull' }>>();
    const chunks = body[Symbol.asyncIterator]();
    const send = (message: ToParser) => worker.postMessage(message);
    // One read at a time, in order, however fast the thread asks.
    let reading = Promise.resolve();
    let transportFailure: { error: unknown } | undefined;
    const sendNextChunk = async () => {
      if (transportFailure) return;
      try {
        const next = await chunks.next();
        send(next.done ? { kind: 'end' } : { kind: 'chunk', bytes: next.value });
      } catch (error) {
        // The transport's failure (the byte cap, a dropped connection) is the run's, as it was thrown, once
        // the rows of the bytes before it are out: the thread is told the bytes ended there.
        transportFailure = { error };
        send({ kind: 'end' });
      }
    };
    worker.on('message', (message: FromParser) => {
      if (message.kind === 'pull') reading = reading.then(sendNextChunk);
      else inbox.push(message);
    });
    worker.on('error', (error) => inbox.fail(parserFailure(error)));
    worker.on('exit', (code) => inbox.fail(new Error(`The feed's parser stopped before the end of the feed (exit code ${code}).`)));
    try {
      for (;;) {
        const message = await inbox.next();
        if (transportFailure && message.kind !== 'rows') throw transportFailure.error;
        if (message.kind === 'failed') throw errorOf(message.failure);
        Object.assign(config, message.config);
        notUtf8 = message.notUtf8;
        if (message.kind === 'done') {
          contentHash = message.contentHash;
          return;
        }
        yield decodeBatch(message.rows);
        send({ kind: 'ack' });
      }
    } finally {
      await worker.terminate();
    }
  }
  return {
    batches: batches(),
    contentHash() {
      if (contentHash === undefined) throw new Error('The content hash is known once every row has been read.');
      return contentHash;
    },
    notUtf8: () => notUtf8,
  };
};

/** The thread itself failed: out of its heap is the feed's doing (a text or element without end), anything else ours. */
function parserFailure(error: Error): Error {
  if ((error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY')
    return feedNotAFeed(
      `A part of the feed needs more than the ${PARSER_RESOURCE_LIMITS.maxOldGenerationSizeMb} MB its parser may hold: a quote, element or value that never ends?`,
    );
  return new Error(`The feed's parser failed: ${error.message}`);
}
