import { Type } from '@sinclair/typebox';
import type { assetSourcesV1 as v1 } from '@contracts/proto';
import { Nullable } from './common.schemas';

/** A source's columns and special columns as answered: a special column not set is null. */
export const SourceColumnsMembers = {
  assetSourceColumns: Type.Array(Type.String()),
  assetKeyColumn: Nullable(Type.String()),
  rotationWeightColumn: Nullable(Type.String()),
  assetGroupColumn: Nullable(Type.String()),
  assetVariantColumn: Nullable(Type.String()),
  reportingColumn: Nullable(Type.String()),
};

export const presentSourceColumns = (columnNames: string[], columns: v1.SourceColumns | undefined) => ({
  assetSourceColumns: columnNames,
  assetKeyColumn: columns?.assetKeyColumn ?? null,
  rotationWeightColumn: columns?.rotationWeightColumn ?? null,
  assetGroupColumn: columns?.assetGroupColumn ?? null,
  assetVariantColumn: columns?.assetVariantColumn ?? null,
  reportingColumn: columns?.reportingColumn ?? null,
});
