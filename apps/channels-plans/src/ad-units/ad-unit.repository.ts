import type { AdUnitGroup } from '@contracts/domain';
import type { Knex } from 'knex';
import type { ServiceDatabase } from '@platform/mysql';
import type { AdUnitTypeEntry, AdUnitTypeRecord } from './ad-unit.model';

interface AdUnitTypeRow {
  ad_unit_type_id: number;
  ad_unit_group: AdUnitGroup;
  name: string;
  is_dynamic_pri_video: boolean;
}

const FOR_DIMENSION_SQL = `SELECT t.ad_unit_type_id, t.ad_unit_group, t.name, t.is_dynamic_pri_video
  FROM ad_unit_type_dimensions d JOIN ad_unit_types t ON t.ad_unit_type_id = d.ad_unit_type_id
  WHERE d.dimension = ? ORDER BY t.ad_unit_type_id`;

/** The seeded ad-unit catalog; the only place its SQL is written. */
export class AdUnitRepository {
  constructor(private readonly db: ServiceDatabase) {}

  /** Makes the stored catalog exactly `entries`, in the caller's transaction (nothing references its rows by key). */
  async replaceCatalog(trx: Knex.Transaction, entries: readonly AdUnitTypeEntry[]): Promise<void> {
    const ids = entries.map((e) => e.adUnitTypeId);
    if (entries.length > 0) {
      await trx('ad_unit_types')
        .insert(
          entries.map((e) => ({ ad_unit_type_id: e.adUnitTypeId, ad_unit_group: e.group, name: e.name, is_dynamic_pri_video: e.isDynamicPriVideo ?? false })),
        )
        .onConflict('ad_unit_type_id')
        .merge(['ad_unit_group', 'name', 'is_dynamic_pri_video']);
    }
    await trx('ad_unit_types')
      .whereNotIn('ad_unit_type_id', ids.length > 0 ? ids : [0])
      .delete();
    await trx('ad_unit_type_dimensions').delete();
    const pairs = entries.flatMap((e) => [...new Set(e.dimensions)].map((dimension) => ({ dimension, ad_unit_type_id: e.adUnitTypeId })));
    if (pairs.length > 0) await trx('ad_unit_type_dimensions').insert(pairs);
  }

  /** The types a placement of `dimension` offers, in id order. */
  async forDimension(dimension: string): Promise<AdUnitTypeRecord[]> {
    const rows = await this.db.execute<AdUnitTypeRow>(FOR_DIMENSION_SQL, [dimension]);
    return rows.map((row) => ({
      adUnitTypeId: Number(row.ad_unit_type_id),
      group: row.ad_unit_group,
      name: row.name,
      isDynamicPriVideo: Boolean(row.is_dynamic_pri_video),
    }));
  }
}
