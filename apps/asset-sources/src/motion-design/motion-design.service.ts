import { ASSET_SOURCE_COLUMN_NAME_MAX, ASSET_SOURCE_NAME_MAX, assetFileNameViolation, MOTION_DESIGN_MAP_MAX } from '@contracts/domain';
import type { Knex } from 'knex';
import { blankOrTooLong, validationFailed, type FieldError } from '@platform/errors';
import { withTransaction } from '@platform/mysql';
import type { ContentCreativePeer } from '../peers/content-creative.peer';
import type { StorageLibraryPeer } from '../peers/storage-library.peer';
import { NO_SPECIAL_COLUMNS, type SourceRow } from '../sources/asset-source.model';
import type { AssetSourceRepository } from '../sources/asset-source.repository';
import type { AssetSourceService } from '../sources/asset-source.service';

export interface MotionDesignFill {
  campaignId: string;
  destinationAssetSourceName: string;
  assetSourceMap: { assetId: string; assetSourceColumn: string }[];
}

/** What a fill asks of the peers that own campaigns and the asset library, on behalf of the caller. */
export interface MotionDesignPeers {
  contentCreative: ContentCreativePeer;
  storageLibrary: Pick<StorageLibraryPeer, 'libraryFiles'>;
}

/** Every entry whose asset is not a file of the account's library, each named by its pointer. */
async function missingAssetErrors(accountId: number, fill: MotionDesignFill, storageLibrary: Pick<StorageLibraryPeer, 'libraryFiles'>): Promise<FieldError[]> {
  const found = await storageLibrary.libraryFiles(accountId, [...new Set(fill.assetSourceMap.map((entry) => entry.assetId))]);
  return fill.assetSourceMap.flatMap((entry, i) =>
    found.has(entry.assetId)
      ? []
      : [{ pointer: `/assetSourceMap/${i}/assetId`, code: 'ASSET_NOT_FOUND', detail: `No file ${entry.assetId} in the account's asset library.` }],
  );
}

function fillErrors(fill: MotionDesignFill): FieldError[] {
  const errors: FieldError[] = [...blankOrTooLong('/destinationAssetSourceName', fill.destinationAssetSourceName, ASSET_SOURCE_NAME_MAX)];
  if (!/^[1-9][0-9]{0,15}$/.test(fill.campaignId))
    errors.push({ pointer: '/campaignId', code: 'INVALID_FORMAT', detail: 'campaignId must be the decimal id of a dynamic campaign of the account.' });
  if (fill.assetSourceMap.length === 0) errors.push({ pointer: '/assetSourceMap', code: 'REQUIRED', detail: 'assetSourceMap must map at least one asset.' });
  if (fill.assetSourceMap.length > MOTION_DESIGN_MAP_MAX)
    errors.push({ pointer: '/assetSourceMap', code: 'TOO_MANY_ITEMS', detail: `assetSourceMap may hold at most ${MOTION_DESIGN_MAP_MAX} entries.` });
  const seen = new Set<string>();
  fill.assetSourceMap.slice(0, MOTION_DESIGN_MAP_MAX).forEach((entry, i) => {
    const at = `/assetSourceMap/${i}`;
    const column = blankOrTooLong(`${at}/assetSourceColumn`, entry.assetSourceColumn, ASSET_SOURCE_COLUMN_NAME_MAX);
    if (column.length === 0 && seen.has(entry.assetSourceColumn))
      column.push({ pointer: `${at}/assetSourceColumn`, code: 'DUPLICATE', detail: `Column ${JSON.stringify(entry.assetSourceColumn)} is mapped twice.` });
    seen.add(entry.assetSourceColumn);
    // A motion-design asset is named by its library path, so a path the library could never hold is refused with the rule it breaks.
    const path = assetFileNameViolation(entry.assetId);
    errors.push(...column, ...(path ? [{ pointer: `${at}/assetId`, code: path.code, detail: `assetId is an asset-library path. ${path.detail}` }] : []));
  });
  return errors;
}

/**
 * Motion-design sources: a campaign's assets, each named by its asset-library path, laid out as one
 * row whose columns are the mapped columns. Filling an existing motion-design source replaces its
 * name, columns and row; destination 0 creates one. Every path must be a file of the account's
 * library at the time of the fill; nothing is stored otherwise.
 */
export class MotionDesignService {
  constructor(
    private readonly knex: Knex,
    private readonly sources: AssetSourceRepository,
    private readonly assetSources: AssetSourceService,
  ) {}

  async fill(accountId: number, destAssetSourceId: number, fill: MotionDesignFill, peers: MotionDesignPeers): Promise<number> {
    const errors = fillErrors(fill);
    if (errors.length > 0) throw validationFailed(errors);
    const current = destAssetSourceId === 0 ? undefined : await this.assetSources.ofKind(accountId, destAssetSourceId, 'motion-design');
    await peers.contentCreative.requireDynamicCampaign(accountId, Number(fill.campaignId));
    // The library is asked only about paths its rules allow (checked above), so its answer is about existence alone.
    const missing = await missingAssetErrors(accountId, fill, peers.storageLibrary);
    if (missing.length > 0) throw validationFailed(missing);
    const row: SourceRow = Object.fromEntries(fill.assetSourceMap.map((entry) => [entry.assetSourceColumn, entry.assetId]));
    const source = {
      assetSourceType: 'motion-design' as const,
      assetSourceName: fill.destinationAssetSourceName.trim(),
      columnNames: fill.assetSourceMap.map((entry) => entry.assetSourceColumn),
      columns: NO_SPECIAL_COLUMNS,
      contentType: null,
    };
    if (!current)
      return withTransaction(this.knex, async (trx) => {
        const assetSourceId = await this.sources.insert(trx, accountId, source, [row]);
        await this.assetSources.recordSourceChange(trx, { accountId, assetSourceId, action: 'create' });
        return assetSourceId;
      });
    await withTransaction(this.knex, async (trx) => {
      const before = await this.assetSources.beforeChange(trx, accountId, current.assetSourceId);
      await this.sources.update(trx, current.assetSourceId, source, [row]);
      await this.assetSources.recordSourceChange(trx, { accountId, assetSourceId: current.assetSourceId, action: 'update', before });
    });
    return current.assetSourceId;
  }
}
