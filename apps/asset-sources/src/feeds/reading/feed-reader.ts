import { isOutboundFetchError } from '@platform/outbound-fetch';
import type { FeedConfig, FeedFormat, FeedReader, FeedRow, FeedRowBatch, FeedUrlType, RejectedFeedRow } from '../feed-reading';
import { validationFailed } from '@platform/errors';
import { isRejectedFeedRow } from '../feed-reading';
import { CustomCodeSandbox } from './custom-code.sandbox';
import { feedProblemOf, feedRefused } from './feed-errors';
import { parseHere, type FeedParsing, type ParsedFeed } from './feed-parsing';
import { destroyQuietly } from './feed-text';
import { feedBytes } from './feed-bytes';
import { describeFeedUrl, type FeedReadLimits, type FeedTransport } from './feed-transport';

export interface FeedReaderDeps {
  /** A transport per urlType; a type without one is refused. */
  transports: Partial<Record<FeedUrlType, FeedTransport>>;
  /** The asset library, for a feed named by fileId. */
  library?: FeedTransport;
  limits: FeedReadLimits;
  /** Where the bytes are parsed (default: in the calling thread). */
  parsing?: FeedParsing;
}

/** The config of a feed before anything is detected: each format fills in what it uses. */
export function emptyFeedConfig(format: Pick<FeedFormat, 'cdp'>, fileId = ''): FeedConfig {
  return {
    rootIsObject: false,
    rowXPath: '',
    xpathMap: {},
    csvColumns: {},
    memPerRow: 0,
    estRowsPerChunk: 0,
    oneRowPerObject: false,
    rootIsArray: false,
    cdp: format.cdp,
    fileId,
    cdpXpathMap: {},
  };
}

/**
 * Reads a feed: the transport its location names, its bytes (gunzipped when gzip) decoded and hashed
 * as they pass, its format parsed as a stream. Nothing is held but the row in hand and the parsers' small buffers.
 */
export function createFeedReader(deps: FeedReaderDeps): FeedReader {
  return {
    async open(location, format, { signal, timeoutMs } = {}) {
      const limits = timeoutMs === undefined ? deps.limits : { ...deps.limits, timeoutMs: Math.min(deps.limits.timeoutMs, timeoutMs) };
      const transport = location.fileId ? deps.library : deps.transports[location.urlType];
      if (!transport)
        throw feedRefused(
          location.fileId ? 'Feeds from the asset library are not available here.' : `Feeds of urlType ${location.urlType} are not available here.`,
        );
      // Compiled before anything is fetched: code that does not compile is the caller's mistake, not the feed's.
      const sandbox = format.cdp ? await compileCustomCode(format.customCode) : undefined;
      let opened;
      try {
        opened = await transport.open(location, limits, signal);
      } catch (error) {
        sandbox?.dispose();
        throw error;
      }
      const { body, version, hostKeyFingerprint } = opened;
      const where = location.fileId ? `asset-library file ${location.fileId}` : describeFeedUrl(location.url);
      const parse = deps.parsing ?? parseHere;
      let parsed: ParsedFeed | undefined;
      const config: FeedConfig = { ...emptyFeedConfig(format, location.fileId ?? ''), ...format.config, cdp: format.cdp };
      const stopOnAbort = () => body.destroy(signal?.reason instanceof Error ? signal.reason : new Error('The feed read was aborted.'));
      signal?.addEventListener('abort', stopOnAbort, { once: true });
      let finished = false;
      let keptLogs: string[] | undefined;
      /** Once: the stream closed, the sandbox's heap freed and its logs kept. */
      const release = () => {
        signal?.removeEventListener('abort', stopOnAbort);
        destroyQuietly(body);
        if (keptLogs) return;
        keptLogs = sandbox?.cdpLogs() ?? [];
        sandbox?.dispose();
      };

      async function* batches(): AsyncGenerator<FeedRowBatch> {
        try {
          parsed = parse(feedBytes(body as AsyncIterable<Buffer>, { maxBytes: limits.maxBytes, where }), format, config);
          yield* sandbox ? transformedRows(parsed.batches, sandbox, config) : parsed.batches;
          finished = true;
        } catch (error) {
          throw isOutboundFetchError(error) ? feedProblemOf(error, limits.maxBytes) : error;
        } finally {
          release();
        }
      }

      return {
        version,
        hostKeyFingerprint,
        batches: batches(),
        contentHash() {
          if (!finished || !parsed) throw new Error('The content hash is known once every row has been read.');
          return parsed.contentHash();
        },
        notUtf8: () => parsed?.notUtf8() ?? null,
        cdpLogs: () => [...(keptLogs ?? sandbox?.cdpLogs() ?? [])],
        config: () => config,
        async close() {
          release();
        },
      };
    },
  };
}

/** customCode is required when cdp is on: a blank one is a 400 at /customCode. */
async function compileCustomCode(customCode: string | undefined): Promise<CustomCodeSandbox> {
  if (!customCode?.trim()) throw validationFailed([{ pointer: '/customCode', code: 'REQUIRED', detail: 'customCode must not be empty when cdp is true.' }]);
  return CustomCodeSandbox.compile(customCode);
}

/** Rows through customCode: a row it fails on is rejected with the reason, a row it drops is left out; cdpXpathMap names the columns it produces. */
async function* transformedRows(batches: AsyncIterable<FeedRowBatch>, sandbox: CustomCodeSandbox, config: FeedConfig): AsyncGenerator<FeedRowBatch> {
  for await (const batch of batches) {
    const transformed: (FeedRow | RejectedFeedRow)[] = [];
    for (const row of batch) {
      if (isRejectedFeedRow(row)) {
        transformed.push(row);
        continue;
      }
      const outcome = sandbox.run(row.values, row.line);
      if (outcome.kind === 'dropped') continue;
      if (outcome.kind === 'failed') {
        transformed.push({ line: row.line, reason: outcome.reason, asRead: row.values });
        continue;
      }
      for (const column of Object.keys(outcome.values)) if (!(column in config.cdpXpathMap)) config.cdpXpathMap[column] = column;
      transformed.push({ line: row.line, values: outcome.values });
    }
    if (transformed.length > 0) yield transformed;
  }
}
