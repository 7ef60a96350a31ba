import { ASSET_SOURCE_ROW_MAX_BYTES } from '@contracts/domain';
import { validationFailed } from '@platform/errors';
import { isRejectedFeedRow, notUtf8Advice, type FeedConfig, type FeedReader } from './feed-reading';
import { feedReadErrors, givenSecrets, type FeedReadInput } from './feed-source.rules';

/** How much of a feed process reads: its head, never the whole feed. */
export const PROCESS_HEAD_ROWS = 100;
/** Distinct values answered per column in `sample`. */
export const PROCESS_SAMPLE_VALUES = 5;
/** The chunk estRowsPerChunk is counted against: rows of about memPerRow bytes that fit in it. */
export const FEED_CHUNK_BYTES = 4 * 1024 * 1024;

export interface ProcessedFeed {
  config: FeedConfig;
  /** Column -> up to PROCESS_SAMPLE_VALUES distinct non-empty values, in feed order. */
  sample: Record<string, string[]>;
  cdpLogs: string[];
  /** sftp: the fingerprint of the host key the server presented, for its owner to check before creating the source. */
  hostKeyFingerprint?: string;
  /** What the owner should know about the head read (bytes that are not UTF-8 in a feed read as UTF-8). */
  warnings: string[];
}

/**
 * Process (36): reads the head of a feed (its first PROCESS_HEAD_ROWS rows) with the reader every
 * transport shares, and answers what creating a source from it needs: the config detected (row path,
 * column maps, shape), sample values per column and the customCode sandbox's output. The connection
 * is closed once the head is read, so a feed of any size costs only its head.
 */
export class FeedProcessService {
  constructor(private readonly reader: FeedReader) {}

  /** `timeoutMs`: how long the caller still waits; reading the head stops by then with a feed problem of its own. */
  async process(accountId: number, input: FeedReadInput, { timeoutMs }: { timeoutMs?: number } = {}): Promise<ProcessedFeed> {
    const errors = feedReadErrors(input);
    if (errors.length > 0) throw validationFailed(errors);
    const { location, format } = input;
    const feed = await this.reader.open(
      {
        accountId,
        urlType: location.urlType,
        url: location.url,
        urlConfig: { ...location.urlConfig, ...givenSecrets(input.secrets) },
        ...(location.fileId ? { fileId: location.fileId } : {}),
      },
      {
        contentType: format.contentType,
        characterEncoding: format.characterEncoding,
        csvSeparator: format.csvSeparator,
        firstRowIsHeader: format.firstRowIsHeader,
        cdp: format.cdp,
        ...(format.cdp && format.customCode ? { customCode: format.customCode } : {}),
      },
      { timeoutMs },
    );
    const sample = new Map<string, string[]>();
    let rows = 0;
    let rowBytes = 0;
    const head = new HeadFindings();
    try {
      read: for await (const batch of feed.batches) {
        for (const row of batch) {
          if (isRejectedFeedRow(row)) {
            head.rejected(row.line, row.reason);
            continue;
          }
          rows++;
          const bytes = Buffer.byteLength(JSON.stringify(row.values));
          head.read(row.line, bytes);
          rowBytes += bytes;
          for (const [column, value] of Object.entries(row.values)) {
            const values = sample.get(column) ?? [];
            sample.set(column, values);
            if (value !== '' && values.length < PROCESS_SAMPLE_VALUES && !values.includes(value)) values.push(value);
          }
          if (rows >= PROCESS_HEAD_ROWS) break read;
        }
      }
    } finally {
      await feed.close();
    }
    const memPerRow = rows === 0 ? 0 : Math.ceil(rowBytes / rows);
    const config: FeedConfig = {
      ...feed.config(),
      ...(format.contentType === 'json' && !format.cdp ? { xpathMap: jsonColumnPaths(sample.keys()) } : {}),
      memPerRow,
      estRowsPerChunk: memPerRow === 0 ? 0 : Math.max(1, Math.floor(FEED_CHUNK_BYTES / memPerRow)),
      fileId: location.fileId ?? '',
    };
    const notUtf8 = feed.notUtf8();
    const advice = notUtf8 && notUtf8Advice(notUtf8);
    const warnings = [...(advice ? [`${advice[0].toUpperCase()}${advice.slice(1)}.`] : []), ...head.warnings()];
    return { config, sample: Object.fromEntries(sample), cdpLogs: feed.cdpLogs(), hostKeyFingerprint: feed.hostKeyFingerprint, warnings };
  }
}

/** Rows of the head named in a warning, as examples. */
const EXAMPLES_NAMED = 3;

/**
 * What the head says a run would refuse: rows the reader rejects (a row of another width than the header,
 * two JSON members naming one column, customCode failing) and rows over the size a stored row may have,
 * which the sample leaves out or shows as if they would serve.
 */
class HeadFindings {
  private rows = 0;
  private readonly rejections: string[] = [];
  private rejectedCount = 0;
  private readonly oversized: string[] = [];
  private oversizedCount = 0;

  read(line: number, bytes: number): void {
    this.rows++;
    if (bytes <= ASSET_SOURCE_ROW_MAX_BYTES) return;
    if (this.oversizedCount++ < EXAMPLES_NAMED) this.oversized.push(`line ${line}: ${bytes} bytes`);
  }

  rejected(line: number, reason: string): void {
    this.rows++;
    if (this.rejectedCount++ < EXAMPLES_NAMED) this.rejections.push(`line ${line}: ${reason.replace(/\.$/, '')}`);
  }

  warnings(): string[] {
    const of = (count: number) => `${count} of the ${this.rows} rows read ${count === 1 ? 'is' : 'are'}`;
    return [
      ...(this.rejectedCount > 0 ? [`${of(this.rejectedCount)} rejected (${this.rejections.join('; ')}).`] : []),
      ...(this.oversizedCount > 0
        ? [
            `${of(this.oversizedCount)} over the ${ASSET_SOURCE_ROW_MAX_BYTES} bytes a stored row may have (${this.oversized.join('; ')}): ` +
              'a run rejects such a row unless columnNames leaves enough of it out.',
          ]
        : []),
    ];
  }
}

/**
 * A JSON feed's columns are its rows' dotted member paths (`price.amount`), named in xpathMap
 * (column -> path) as an XML feed's leaves are, so a create from this config checks columnNames
 * against them. The reader does not need them: it flattens every member of every row.
 */
function jsonColumnPaths(columns: Iterable<string>): Record<string, string> {
  return Object.fromEntries([...columns].map((column) => [column, column]));
}
