import type { Knex } from 'knex';
import type { MediaChannelStatus, MediaChannelType } from '@contracts/domain';
import { listWithTotalColumn, TOTAL_COLUMN, type Page, type PageWindow, type ServiceDatabase } from '@platform/mysql';

type TotalColumn = { [TOTAL_COLUMN]: number };
import type { MediaChannelPatch, MediaChannelRecord, NewMediaChannel, TemplateCampaignMediaChannel } from './media-channel.model';

interface MediaChannelRow {
  idx: number;
  org_id: string;
  name: string;
  ad_server_id: string;
  ad_server_name: string | null;
  ad_server_kind: string | null;
  logo_url: string | null;
  type: MediaChannelType;
  status: MediaChannelStatus;
  tag_generation: boolean;
  creative_generation: boolean;
  additional_configuration: string | null;
  updated_at: Date;
  deleted_at: Date | null;
}

/**
 * The read paths below are constant strings run as prepared statements (ServiceDatabase.execute):
 * the list, its count and the single read are what the gateway calls most, and this way no SQL is
 * built or parsed per request. The sealed API key is not among the columns: only `getAdServerConnection` reads it.
 */
const CHANNEL = `SELECT mc.idx, mc.org_id, mc.name, mc.ad_server_id, a.ad_server_name, a.kind AS ad_server_kind, a.logo_url,
  mc.type, mc.status, mc.tag_generation, mc.creative_generation, mc.additional_configuration, mc.updated_at, mc.deleted_at`;
const FROM = 'FROM media_channels mc LEFT JOIN ad_servers a ON a.ad_server_id = mc.ad_server_id';

const GET_LIVE_SQL = `${CHANNEL} ${FROM} WHERE mc.org_id = ? AND mc.idx = ? AND mc.deleted_seq = 0`;
const COUNT_LIVE_SQL = 'SELECT COUNT(*) AS total FROM media_channels WHERE org_id = ? AND deleted_seq = 0';
// The page and its total in one statement (listWithTotalColumn); the org id is bound twice.
const LIST_LIVE_SQL = `${CHANNEL}, (${COUNT_LIVE_SQL}) AS ${TOTAL_COLUMN} ${FROM} WHERE mc.org_id = ? AND mc.deleted_seq = 0 ORDER BY mc.idx LIMIT ? OFFSET ?`;

/** A template campaign sees the org's live channels plus the deleted ones its media plans still use. */
const USED_BY_CAMPAIGN = 'SELECT media_channel_idx FROM media_plans WHERE retail_campaign_id = ?';
const CAMPAIGN_VISIBLE = `mc.org_id = ? AND (mc.deleted_seq = 0 OR mc.idx IN (${USED_BY_CAMPAIGN}))`;
const COUNT_FOR_CAMPAIGN_SQL = `SELECT COUNT(*) AS total FROM media_channels mc WHERE ${CAMPAIGN_VISIBLE}`;
const LIST_FOR_CAMPAIGN_SQL = `${CHANNEL}, mc.idx IN (${USED_BY_CAMPAIGN}) AS is_utilized, (${COUNT_FOR_CAMPAIGN_SQL}) AS ${TOTAL_COLUMN} ${FROM} WHERE ${CAMPAIGN_VISIBLE} ORDER BY mc.idx LIMIT ? OFFSET ?`;

const SEALED_API_KEY_SQL =
  'SELECT api_key_sealed FROM media_channels WHERE org_id = ? AND ad_server_id = ? AND deleted_seq = 0 AND api_key_sealed IS NOT NULL ORDER BY idx LIMIT 1';

const toRecord = (row: MediaChannelRow): MediaChannelRecord => ({
  idx: Number(row.idx),
  orgId: row.org_id,
  name: row.name,
  adServerId: row.ad_server_id,
  adServerName: row.ad_server_name,
  adServerKind: row.ad_server_kind,
  logoUrl: row.logo_url,
  type: row.type,
  status: row.status,
  tagGeneration: row.tag_generation,
  creativeGeneration: row.creative_generation,
  additionalConfigurationJson: row.additional_configuration,
  updatedAt: row.updated_at,
  deletedAt: row.deleted_at,
});

export class MediaChannelRepository {
  constructor(private readonly db: ServiceDatabase) {}

  /** Fails with ER_DUP_ENTRY on uq_media_channels_org_live_name when the org has a live channel of that name. */
  async insert(trx: Knex.Transaction, channel: NewMediaChannel): Promise<number> {
    const [idx] = await trx('media_channels').insert({
      org_id: channel.orgId,
      name: channel.name,
      ad_server_id: channel.adServerId,
      type: channel.type,
      tag_generation: channel.tagGeneration,
      creative_generation: channel.creativeGeneration,
      additional_configuration: channel.additionalConfigurationJson,
      api_key_sealed: channel.apiKeySealed,
    });
    return Number(idx);
  }

  /** Returns false when no live channel of the org has that idx. */
  async update(trx: Knex.Transaction, orgId: string, idx: number, patch: MediaChannelPatch): Promise<boolean> {
    const changes: Record<string, unknown> = { updated_at: trx.raw('CURRENT_TIMESTAMP(3)') };
    if (patch.status !== undefined) changes.status = patch.status;
    if (patch.tagGeneration !== undefined) changes.tag_generation = patch.tagGeneration;
    if (patch.creativeGeneration !== undefined) changes.creative_generation = patch.creativeGeneration;
    if (patch.additionalConfigurationJson !== undefined) changes.additional_configuration = patch.additionalConfigurationJson;
    const count = await trx('media_channels').where({ org_id: orgId, idx, deleted_seq: 0 }).update(changes);
    return count > 0;
  }

  /** deleted_seq takes the idx, which frees the name in the unique index; returns false when nothing live matched. */
  async softDelete(trx: Knex.Transaction, orgId: string, idx: number): Promise<boolean> {
    const count = await trx('media_channels')
      .where({ org_id: orgId, idx, deleted_seq: 0 })
      .update({ deleted_seq: idx, deleted_at: trx.raw('CURRENT_TIMESTAMP(3)'), updated_at: trx.raw('CURRENT_TIMESTAMP(3)') });
    return count > 0;
  }

  /** The channel, live or not, as the transaction changing it sees it (row locked): the audit trail's before and after. */
  async findForChange(trx: Knex.Transaction, orgId: string, idx: number): Promise<MediaChannelRecord | undefined> {
    // The channel's row alone is locked. FOR UPDATE on the join would lock the ad server's row too,
    // which every channel of that ad server shares: concurrent writes of different channels would
    // queue behind it and deadlock with the foreign-key checks of their own inserts.
    await trx.raw('SELECT idx FROM media_channels WHERE org_id = ? AND idx = ? FOR UPDATE', [orgId, idx]);
    const [rows] = (await trx.raw(`${CHANNEL} ${FROM} WHERE mc.org_id = ? AND mc.idx = ?`, [orgId, idx])) as [MediaChannelRow[]];
    return rows[0] && toRecord(rows[0]);
  }

  async findLive(orgId: string, idx: number): Promise<MediaChannelRecord | undefined> {
    const [row] = await this.db.execute<MediaChannelRow>(GET_LIVE_SQL, [orgId, idx]);
    return row && toRecord(row);
  }

  listLive(orgId: string, window: PageWindow): Promise<Page<MediaChannelRecord>> {
    return listWithTotalColumn(
      {
        rows: this.db.execute<MediaChannelRow & TotalColumn>(LIST_LIVE_SQL, [orgId, orgId, window.limit, window.offset]),
        countWhenEmpty: () => this.db.execute(COUNT_LIVE_SQL, [orgId]),
      },
      window,
      toRecord,
    );
  }

  listForCampaign(orgId: string, retailCampaignId: number, window: PageWindow): Promise<Page<TemplateCampaignMediaChannel>> {
    return listWithTotalColumn(
      {
        rows: this.db.execute<MediaChannelRow & TotalColumn & { is_utilized: number }>(LIST_FOR_CAMPAIGN_SQL, [
          retailCampaignId,
          orgId,
          retailCampaignId,
          orgId,
          retailCampaignId,
          window.limit,
          window.offset,
        ]),
        countWhenEmpty: () => this.db.execute(COUNT_FOR_CAMPAIGN_SQL, [orgId, retailCampaignId]),
      },
      window,
      (row) => ({ ...toRecord(row), isUtilized: Boolean(row.is_utilized) }),
    );
  }

  /** The sealed key of the org's live channel on that ad server, if any has one. */
  async findSealedApiKey(orgId: string, adServerId: string): Promise<Buffer | undefined> {
    const [row] = await this.db.execute<{ api_key_sealed: Buffer }>(SEALED_API_KEY_SQL, [orgId, adServerId]);
    return row?.api_key_sealed;
  }
}
