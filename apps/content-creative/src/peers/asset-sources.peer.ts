import type { assetSourcesV1 } from '@contracts/proto';
import type { PromiseClient } from '@platform/grpc';
import type { DescribedAssetSource } from '../campaigns/campaign.model';

/**
 * What content-creative asks asset-sources, on behalf of the caller of the operation it serves:
 * which sources a campaign or content map may name, with their columns, and their rows by value.
 */
export interface AssetSourcesPeer {
  /** The named sources the account has; ids that do not exist (or are another account's) are left out. */
  describe(accountId: number, assetSourceIds: number[]): Promise<DescribedAssetSource[]>;
  /** The first row per value of `column`; values without a row are absent. */
  findRows(accountId: number, assetSourceId: number, column: string, values: string[]): Promise<Map<string, Record<string, unknown>>>;
}

export function assetSourcesPeer(client: PromiseClient<assetSourcesV1.AssetSourcesServiceClient>): AssetSourcesPeer {
  return {
    async describe(accountId, assetSourceIds) {
      const { sources } = await client.describeAssetSources({ accountId, assetSourceIds });
      return sources.map((s) => ({ assetSourceId: s.assetSourceId, columnNames: s.columnNames, assetKeyColumn: s.assetKeyColumn }));
    },
    async findRows(accountId, assetSourceId, column, values) {
      const { rows } = await client.findAssetRows({ accountId, assetSourceId, column, values });
      return new Map(rows.map((row) => [row.value, JSON.parse(row.rowJson) as Record<string, unknown>]));
    },
  };
}

/** Asked of asset-sources in slices, so one question never carries an unbounded list. */
const FIND_BATCH = 500;

/** The first row per value of `column`, for any number of values (asked in slices). */
export async function findRowsBatched(
  assets: AssetSourcesPeer,
  accountId: number,
  assetSourceId: number,
  column: string,
  values: readonly string[],
): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < values.length; i += FIND_BATCH) {
    for (const [value, row] of await assets.findRows(accountId, assetSourceId, column, values.slice(i, i + FIND_BATCH))) found.set(value, row);
  }
  return found;
}

/** The row of every content value of a content map, from the source and column it was saved against; none when it names none. */
export async function rowsOfMap(
  assets: AssetSourcesPeer,
  accountId: number,
  map: { dataServiceId: number | null; lookupColumn: string | null; placements: { content: string[] }[] },
): Promise<Map<string, Record<string, unknown>>> {
  if (map.dataServiceId === null || map.lookupColumn === null) return new Map();
  const values = [...new Set(map.placements.flatMap((p) => p.content))];
  return findRowsBatched(assets, accountId, map.dataServiceId, map.lookupColumn, values);
}
