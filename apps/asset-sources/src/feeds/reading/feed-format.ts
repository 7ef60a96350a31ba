import type { FeedConfig, FeedFormat, FeedRowBatch } from '../feed-reading';
import { csvRows } from './csv-rows';
import { jsonRows } from './json-rows';
import { xmlRows } from './xml-rows';
import { decodeFeedText, utf8FeedBytes, type ByteTally } from './feed-text';

/**
 * A feed's bytes as rows in its format, tallied (counted and hashed) as they pass; `config` takes
 * what is detected from the head. csv-parse reads bytes (UTF-8, as they came when the feed is); the
 * JSON and XML parsers read text.
 */
export function formatRows(body: AsyncIterable<Buffer>, tally: ByteTally, format: FeedFormat, config: FeedConfig): AsyncIterable<FeedRowBatch> {
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
