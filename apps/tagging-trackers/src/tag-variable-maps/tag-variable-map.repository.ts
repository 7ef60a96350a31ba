import type { Knex } from 'knex';
import type { ServiceDatabase } from '@platform/mysql';
import type { TagVariableMapInput, TagVariableMapRecord } from './tag-variable-map.model';

interface TagVariableMapRow {
  idx: number;
  ad_server_id: string;
  data_signal: string;
  macro_name: string;
  ad_server_params: string;
}

export const SIGNAL_KEY = 'ux_tag_variable_maps_signal';

const toRecord = (row: TagVariableMapRow): TagVariableMapRecord => ({
  idx: Number(row.idx),
  adServerId: row.ad_server_id,
  dataSignal: row.data_signal,
  macroName: row.macro_name,
  adServerParamsJson: row.ad_server_params,
});

const LIST_SQL =
  'SELECT idx, ad_server_id, data_signal, macro_name, ad_server_params FROM tag_variable_maps WHERE account_id = ? AND campaign_id = ? ORDER BY idx';

export class TagVariableMapRepository {
  constructor(private readonly db: ServiceDatabase) {}

  async list(accountId: number, campaignId: number): Promise<TagVariableMapRecord[]> {
    const rows = await this.db.execute<TagVariableMapRow>(LIST_SQL, [accountId, campaignId]);
    return rows.map(toRecord);
  }

  async count(accountId: number, campaignId: number): Promise<number> {
    const row = await this.db.knex('tag_variable_maps').where({ account_id: accountId, campaign_id: campaignId }).count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }

  /** Duplicate (campaign, ad server, data signal) fails on SIGNAL_KEY. */
  async insert(trx: Knex.Transaction, accountId: number, campaignId: number, input: TagVariableMapInput): Promise<number> {
    const [idx] = await trx('tag_variable_maps').insert({
      account_id: accountId,
      campaign_id: campaignId,
      ad_server_id: input.adServerId,
      data_signal: input.dataSignal,
      macro_name: input.macroName,
      ad_server_params: input.adServerParamsJson,
    });
    return Number(idx);
  }

  /** False when the campaign holds no entry idx. Duplicate (campaign, ad server, data signal) fails on SIGNAL_KEY. */
  async update(trx: Knex.Transaction, accountId: number, campaignId: number, idx: number, input: TagVariableMapInput): Promise<boolean> {
    const changed = await trx('tag_variable_maps')
      .where({ idx, account_id: accountId, campaign_id: campaignId })
      .update({
        ad_server_id: input.adServerId,
        data_signal: input.dataSignal,
        macro_name: input.macroName,
        ad_server_params: input.adServerParamsJson,
        updated_at: trx.raw('CURRENT_TIMESTAMP(3)'),
      });
    if (changed > 0) return true;
    // MariaDB counts matched rows only when they change; an identical update still names an existing row.
    const existing = await trx('tag_variable_maps').where({ idx, account_id: accountId, campaign_id: campaignId }).first('idx');
    return existing !== undefined;
  }

  /** The entry as the transaction changing it sees it (row locked): the audit trail's before and after. */
  async findForChange(
    trx: Knex.Transaction,
    accountId: number,
    campaignId: number,
    idx: number,
  ): Promise<(TagVariableMapRecord & { campaignId: number }) | undefined> {
    const row = (await trx('tag_variable_maps')
      .where({ idx, account_id: accountId, campaign_id: campaignId })
      .forUpdate()
      .first('idx', 'ad_server_id', 'data_signal', 'macro_name', 'ad_server_params')) as TagVariableMapRow | undefined;
    return row && { ...toRecord(row), campaignId };
  }
}
