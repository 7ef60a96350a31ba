import type { Knex } from 'knex';
import { MediaChannelPatch, MediaChannelRecord, MediaChannelStatus, MediaChannelType, NewMediaChannel, Page } from './media-channel.model';

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
  tag_generation: number | boolean;
  creative_generation: number | boolean;
  additional_configuration: string | null;
  api_key_sealed: Buffer | null;
  updated_at: Date;
  deleted_at: Date | null;
}

const LIVE = { 'mc.deleted_seq': 0 };

function toRecord(row: MediaChannelRow): MediaChannelRecord {
  return {
    idx: Number(row.idx),
    orgId: row.org_id,
    name: row.name,
    adServerId: row.ad_server_id,
    adServerName: row.ad_server_name,
    adServerKind: row.ad_server_kind,
    logoUrl: row.logo_url,
    type: row.type,
    status: row.status,
    tagGeneration: Boolean(row.tag_generation),
    creativeGeneration: Boolean(row.creative_generation),
    // MariaDB's JSON is LONGTEXT: the driver hands back the text, which callers pass on unparsed.
    additionalConfigurationJson: row.additional_configuration,
    apiKeySealed: row.api_key_sealed,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
  };
}

export class MediaChannelRepository {
  constructor(private readonly knex: Knex) {}

  private select() {
    return this.knex('media_channels as mc')
      .leftJoin('ad_servers as a', 'a.ad_server_id', 'mc.ad_server_id')
      .select('mc.*', 'a.ad_server_name', 'a.kind as ad_server_kind', 'a.logo_url');
  }

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

  async softDelete(trx: Knex.Transaction, orgId: string, idx: number): Promise<boolean> {
    const count = await trx('media_channels')
      .where({ org_id: orgId, idx, deleted_seq: 0 })
      .update({ deleted_seq: idx, deleted_at: trx.raw('CURRENT_TIMESTAMP(3)'), updated_at: trx.raw('CURRENT_TIMESTAMP(3)') });
    return count > 0;
  }

  async findLive(orgId: string, idx: number): Promise<MediaChannelRecord | undefined> {
    const row: MediaChannelRow | undefined = await this.select().where({ 'mc.org_id': orgId, 'mc.idx': idx, ...LIVE }).first();
    return row && toRecord(row);
  }

  async findLiveByAdServer(orgId: string, adServerId: string): Promise<MediaChannelRecord | undefined> {
    const row: MediaChannelRow | undefined = await this.select()
      .where({ 'mc.org_id': orgId, 'mc.ad_server_id': adServerId, ...LIVE })
      .orderBy('mc.idx')
      .first();
    return row && toRecord(row);
  }

  async nameTaken(orgId: string, name: string, db: Knex | Knex.Transaction = this.knex): Promise<boolean> {
    const row = await db('media_channels').where({ org_id: orgId, name, deleted_seq: 0 }).first('idx');
    return row !== undefined;
  }

  async listLive(orgId: string, offset: number, limit: number): Promise<Page<MediaChannelRecord>> {
    const [rows, [{ total }]] = await Promise.all([
      this.select().where({ 'mc.org_id': orgId, ...LIVE }).orderBy('mc.idx').offset(offset).limit(limit) as Promise<MediaChannelRow[]>,
      this.knex('media_channels').where({ org_id: orgId, deleted_seq: 0 }).count({ total: '*' }) as Promise<{ total: number }[]>,
    ]);
    return { items: rows.map(toRecord), total: Number(total) };
  }

  /**
   * A template campaign sees every live channel of its org, plus deleted channels its media plans
   * still use (so an operator can see why a plan broke), each with whether the campaign uses it.
   */
  async listForCampaign(orgId: string, retailCampaignId: number, offset: number, limit: number): Promise<Page<MediaChannelRecord & { isUtilized: boolean }>> {
    const utilized = this.knex('media_plans').select('media_channel_idx').where({ retail_campaign_id: retailCampaignId });
    const visible = (q: Knex.QueryBuilder) =>
      q.where('mc.org_id', orgId).andWhere((w) => w.where('mc.deleted_seq', 0).orWhereIn('mc.idx', utilized.clone()));
    const [rows, [{ total }]] = await Promise.all([
      visible(this.select())
        .select(this.knex.raw('mc.idx IN (?) as is_utilized', [utilized.clone()]))
        .orderBy('mc.idx')
        .offset(offset)
        .limit(limit) as Promise<(MediaChannelRow & { is_utilized: number })[]>,
      visible(this.knex('media_channels as mc')).count({ total: '*' }) as Promise<{ total: number }[]>,
    ]);
    return { items: rows.map((row) => ({ ...toRecord(row), isUtilized: Boolean(row.is_utilized) })), total: Number(total) };
  }
}
