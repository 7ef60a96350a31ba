import type { Knex } from 'knex';
import type { ServiceDatabase } from '@platform/mysql';
import type { CampaignTagRow, NewTagMetadata } from './tag.model';

interface CampaignTagDbRow {
  tag_metadata_id: number;
  site_name: string;
  placement_id: number;
  placement_name: string;
  dimension: string;
  ad_server_id: string;
  kind: string;
  tag_value: string;
}

const CURRENT_TAGS_SQL =
  'SELECT tag_metadata_id, site_name, placement_id, placement_name, dimension, ad_server_id, kind, tag_value FROM tag_metadata ' +
  'WHERE account_id = ? AND campaign_id = ? AND is_current = 1 AND tag_metadata_id > ? ORDER BY tag_metadata_id LIMIT ?';

export class TagRepository {
  constructor(private readonly db: ServiceDatabase) {}

  /** The placement's current tag of the tag's kind is current no longer. */
  async retireCurrent(trx: Knex.Transaction, tag: NewTagMetadata): Promise<void> {
    await trx('tag_metadata')
      .where({ account_id: tag.accountId, media_plan_id: tag.mediaPlanId, placement_id: tag.placementId, kind: tag.kind, is_current: true })
      .update({ is_current: false });
  }

  /** Inserts the tag's row with no text yet (the text names the row's id); answers the id. */
  async insertPending(trx: Knex.Transaction, tag: NewTagMetadata): Promise<number> {
    const [id] = await trx('tag_metadata').insert({
      account_id: tag.accountId,
      campaign_id: tag.campaignId,
      media_plan_id: tag.mediaPlanId,
      placement_id: tag.placementId,
      placement_name: tag.placementName,
      site_name: tag.siteName,
      dimension: tag.dimension,
      ad_server_id: tag.adServerId,
      kind: tag.kind,
      options: tag.optionsJson,
      tag_value: '',
    });
    return Number(id);
  }

  async setValue(trx: Knex.Transaction, tagMetadataId: number, tagValue: string): Promise<void> {
    await trx('tag_metadata').where({ tag_metadata_id: tagMetadataId }).update({ tag_value: tagValue });
  }

  /** The campaign's current tags after a tag metadata id, in id order (keyset pages for the CSV). */
  async currentTags(accountId: number, campaignId: number, afterId: number, limit: number): Promise<CampaignTagRow[]> {
    const rows = await this.db.execute<CampaignTagDbRow>(CURRENT_TAGS_SQL, [accountId, campaignId, afterId, limit]);
    return rows.map((row) => ({
      tagMetadataId: Number(row.tag_metadata_id),
      siteName: row.site_name,
      placementId: Number(row.placement_id),
      placementName: row.placement_name,
      dimension: row.dimension,
      adServerId: row.ad_server_id,
      kind: row.kind,
      tagValue: row.tag_value,
    }));
  }
}
