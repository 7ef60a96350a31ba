import type { Knex } from 'knex';
import { notFound, validationFailed } from '@platform/errors';

export const RETAIL_CAMPAIGN_STATUSES = ['DRAFT', 'ACTIVE', 'PAUSED', 'ARCHIVED'] as const;

export interface RetailCampaignRecord {
  retailCampaignId: number;
  accountId: number;
  campaignName: string;
  templateIdx: number | null;
  isAdGroupCampaign: boolean;
  isSbt: boolean;
  status: string;
  createdAt: Date;
  updatedAt: Date;
}

interface RetailCampaignRow {
  retail_campaign_id: number;
  account_id: number;
  campaign_name: string;
  template_idx: number | null;
  is_ad_group_campaign: number | boolean;
  is_sbt: number | boolean;
  status: string;
  created_at: Date;
  updated_at: Date;
}

const toRecord = (row: RetailCampaignRow): RetailCampaignRecord => ({
  retailCampaignId: Number(row.retail_campaign_id),
  accountId: Number(row.account_id),
  campaignName: row.campaign_name,
  templateIdx: row.template_idx === null ? null : Number(row.template_idx),
  isAdGroupCampaign: Boolean(row.is_ad_group_campaign),
  isSbt: Boolean(row.is_sbt),
  status: row.status,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const retailCampaignNotFound = (id: number) => notFound('RETAIL_CAMPAIGN_NOT_FOUND', `Retail campaign ${id} was not found.`);

/** Retail campaigns (DESIGN.md extension): the campaigns media plans and exports hang off. */
export class RetailCampaignService {
  constructor(private readonly knex: Knex) {}

  async create(accountId: number, input: { campaignName: string; templateIdx?: number; isAdGroupCampaign: boolean; isSbt: boolean }): Promise<number> {
    const name = input.campaignName.trim();
    if (name.length === 0 || name.length > 200) {
      throw validationFailed([{ pointer: '/campaignName', code: name.length === 0 ? 'REQUIRED' : 'TOO_LONG', detail: 'campaignName must be 1 to 200 characters.' }]);
    }
    const [id] = await this.knex('retail_campaigns').insert({
      account_id: accountId,
      campaign_name: name,
      template_idx: input.templateIdx ?? null,
      is_ad_group_campaign: input.isAdGroupCampaign,
      is_sbt: input.isSbt,
    });
    return Number(id);
  }

  async get(accountId: number, id: number): Promise<RetailCampaignRecord> {
    const row: RetailCampaignRow | undefined = await this.knex('retail_campaigns').where({ account_id: accountId, retail_campaign_id: id }).first();
    if (!row) throw retailCampaignNotFound(id);
    return toRecord(row);
  }

  async list(accountId: number, offset: number, limit: number): Promise<{ items: RetailCampaignRecord[]; total: number }> {
    const [rows, [{ total }]] = await Promise.all([
      this.knex('retail_campaigns').where({ account_id: accountId }).orderBy('retail_campaign_id').offset(offset).limit(limit) as Promise<RetailCampaignRow[]>,
      this.knex('retail_campaigns').where({ account_id: accountId }).count({ total: '*' }) as Promise<{ total: number }[]>,
    ]);
    return { items: rows.map(toRecord), total: Number(total) };
  }

  async update(accountId: number, id: number, patch: { campaignName?: string; status?: string }): Promise<void> {
    const changes: Record<string, unknown> = { updated_at: this.knex.raw('CURRENT_TIMESTAMP(3)') };
    const errors = [];
    if (patch.campaignName !== undefined) {
      const name = patch.campaignName.trim();
      if (name.length === 0 || name.length > 200) errors.push({ pointer: '/campaignName', code: 'INVALID_LENGTH', detail: 'campaignName must be 1 to 200 characters.' });
      changes.campaign_name = name;
    }
    if (patch.status !== undefined) {
      if (!(RETAIL_CAMPAIGN_STATUSES as readonly string[]).includes(patch.status)) {
        errors.push({ pointer: '/status', code: 'NOT_ALLOWED', detail: `status must be one of ${RETAIL_CAMPAIGN_STATUSES.join(', ')}.` });
      }
      changes.status = patch.status;
    }
    if (errors.length > 0) throw validationFailed(errors);
    const count = await this.knex('retail_campaigns').where({ account_id: accountId, retail_campaign_id: id }).update(changes);
    if (count === 0) throw retailCampaignNotFound(id);
  }
}
