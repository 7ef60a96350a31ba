import { isDeepStrictEqual } from 'node:util';
import type { SpecialColumns } from '../sources/asset-source.model';
import type { FeedSecrets, FeedSettings } from './feed-source.model';

/** What a run reads a feed with: where from and with which credentials, how, and into which columns. */
export interface IngestionInputs {
  settings: Pick<FeedSettings, 'location' | 'format' | 'policies'>;
  secrets: FeedSecrets;
  columnNames: readonly string[];
  columns: SpecialColumns;
}

/** The inputs as plain data, a member that is null or absent alike (stored settings hold null where a request leaves a member out). */
const comparable = ({ settings, secrets, columnNames, columns }: IngestionInputs): unknown =>
  JSON.parse(
    JSON.stringify(
      { location: settings.location, format: settings.format, policies: settings.policies, secrets, columnNames, columns },
      (_key, value: unknown) => (value === null ? undefined : value),
    ),
  );

/**
 * Whether an update changes what a run reads and stores (not the source's name or schedule): a run
 * under way with the old inputs is then superseded. An update that changes none of it lets a running
 * run finish, so a client that sends the same settings again and again never keeps a feed from completing.
 */
export function ingestionChanged(before: IngestionInputs, after: IngestionInputs): boolean {
  return !isDeepStrictEqual(comparable(before), comparable(after));
}
