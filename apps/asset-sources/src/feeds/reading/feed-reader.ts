import { isOutboundFetchError } from '@platform/outbound-fetch';
import type { FeedConfig, FeedFormat, FeedReader, FeedRow, FeedRowBatch, FeedUrlType, RejectedFeedRow } from '../feed-reading';
import { validationFailed } from '@platform/errors';
import { isRejectedFeedRow } from '../feed-reading';
import { csvRows } from './csv-rows';
import { CustomCodeSandbox } from './custom-code.sandbox';
import { jsonRows } from './json-rows';
import { xmlRows } from './xml-rows';
import { feedProblemOf, feedRefused } from './feed-errors';
import { ByteTally, decodeFeedText, destroyQuietly, utf8FeedBytes } from './feed-text';
import type { FeedReadLimits, FeedTransport } from './feed-transport';

export interface FeedReaderDeps {
  /** A transport per urlType; a type without one is refused. */
  transports: Partial<Record<FeedUrlType, FeedTransport>>;
  /** The asset library, for a feed named by fileId. */
  library?: FeedTransport;
  limits: FeedReadLimits;
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
 * Reads a feed: the transport its location names, its bytes decoded and hashed as they pass, its
 * format parsed as a stream. Nothing is held but the row in hand and the parsers' small buffers.
 */
export function createFeedReader(deps: FeedReaderDeps): FeedReader {
  return {
    async open(location, format, signal) {
      const transport = location.fileId ? deps.library : deps.transports[location.urlType];
      if (!transport)
        throw feedRefused(
          location.fileId ? 'Feeds from the asset library are not available here.' : `Feeds of urlType ${location.urlType} are not available here.`,
        );
      // Compiled before anything is fetched: code that does not compile is the caller's mistake, not the feed's.
      const sandbox = format.cdp ? await compileCustomCode(format.customCode) : undefined;
      let opened;
      try {
        opened = await transport.open(location, deps.limits, signal);
      } catch (error) {
        sandbox?.dispose();
        throw error;
      }
      const { body, version } = opened;
      const tally = new ByteTally();
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
          const parsed = formatRows(body as AsyncIterable<Buffer>, tally, format, config);
          yield* sandbox ? transformedRows(parsed, sandbox, config) : parsed;
          finished = true;
        } catch (error) {
          throw isOutboundFetchError(error) ? feedProblemOf(error, deps.limits.maxBytes) : error;
        } finally {
          release();
        }
      }

      return {
        version,
        batches: batches(),
        contentHash() {
          if (!finished) throw new Error('The content hash is known once every row has been read.');
          return tally.hex();
        },
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
        transformed.push({ line: row.line, reason: outcome.reason });
        continue;
      }
      for (const column of Object.keys(outcome.values)) if (!(column in config.cdpXpathMap)) config.cdpXpathMap[column] = column;
      transformed.push({ line: row.line, values: outcome.values });
    }
    if (transformed.length > 0) yield transformed;
  }
}

/** csv-parse reads bytes (UTF-8, as they came when the feed is); the JSON and XML parsers read text. */
function formatRows(body: AsyncIterable<Buffer>, tally: ByteTally, format: FeedFormat, config: FeedConfig): AsyncIterable<FeedRowBatch> {
  const text = () => decodeFeedText(body, format.characterEncoding, tally);
  switch (format.contentType) {
    case 'csv':
      return csvRows(
        utf8FeedBytes(body, format.characterEncoding, tally),
        {
          separator: format.csvSeparator,
          firstRowIsHeader: format.firstRowIsHeader,
          columns: Object.keys(config.csvColumns).length > 0 ? config.csvColumns : undefined,
        },
        (shape) => (config.csvColumns = shape.columns),
      );
    case 'json':
      return jsonRows(text(), given(config, ['rootIsArray', 'rootIsObject', 'rowXPath', 'oneRowPerObject']), (shape) => Object.assign(config, shape));
    case 'xml':
      return xmlRows(text(), given(config, ['rowXPath', 'xpathMap']), (shape) => Object.assign(config, shape));
  }
}

/** The fields of a config from process that say something (a false flag or an empty path is "detect"). */
function given<K extends keyof FeedConfig>(config: FeedConfig, keys: K[]): Partial<Pick<FeedConfig, K>> {
  const picked: Partial<Pick<FeedConfig, K>> = {};
  for (const key of keys) if (config[key]) picked[key] = config[key];
  return picked;
}
