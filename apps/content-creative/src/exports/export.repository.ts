import type { Knex } from 'knex';
import { FINISHED_EXPORT_STATUSES, type ExportAssetType, type ExportJobStatus } from '@contracts/domain';
import type { ServiceDatabase } from '@platform/mysql';
import type { ExportKind, ExportOutcome, ExportRecord, ExportSummary } from './export.model';

interface ExportRow {
  queue_id: string;
  account_id: number;
  org_id: string;
  retail_campaign_id: number;
  campaign_name: string;
  template_idx: number | null;
  asset_export_type: string;
  resolution: number;
  is_preview: number | boolean;
  status: string;
  status_message: string;
  object_path: string;
  manifest: string | null;
  total_items: number;
  created_at: Date;
}

const toSummary = (row: Omit<ExportRow, 'manifest'>): ExportSummary => ({
  queueId: row.queue_id,
  accountId: Number(row.account_id),
  orgId: row.org_id,
  retailCampaignId: Number(row.retail_campaign_id),
  campaignName: row.campaign_name,
  templateIdx: row.template_idx === null ? null : Number(row.template_idx),
  assetExportType: row.asset_export_type as ExportAssetType,
  resolution: Number(row.resolution),
  isPreview: Boolean(Number(row.is_preview)),
  status: row.status as ExportJobStatus,
  statusMessage: row.status_message,
  objectPath: row.object_path,
  totalItems: Number(row.total_items),
  createdAt: row.created_at,
});

const toRecord = (row: ExportRow): ExportRecord => ({ ...toSummary(row), manifestJson: row.manifest });

/** Every column but the manifest (tens of kilobytes for a large export), for reads that list exports. */
const SUMMARY_COLUMNS = [
  'queue_id',
  'account_id',
  'org_id',
  'retail_campaign_id',
  'campaign_name',
  'template_idx',
  'asset_export_type',
  'resolution',
  'is_preview',
  'status',
  'status_message',
  'object_path',
  'total_items',
  'created_at',
] as const satisfies readonly (keyof ExportRow)[];

const kindWhere = (kind: ExportKind) => ({
  account_id: kind.accountId,
  retail_campaign_id: kind.retailCampaignId,
  asset_export_type: kind.assetExportType,
  resolution: kind.resolution,
  is_preview: kind.isPreview,
});

/** Exports listed per campaign: the newest this many, enough for every format and resolution's latest and latest completed. */
const CAMPAIGN_EXPORTS_READ = 200;

export class ExportRepository {
  constructor(private readonly db: ServiceDatabase) {}

  /** The running export of a kind, locked so a concurrent start waits for this transaction. */
  async runningForUpdate(trx: Knex.Transaction, kind: ExportKind): Promise<ExportRecord | undefined> {
    const row = (await trx('exports')
      .where({ ...kindWhere(kind), running: 1 })
      .forUpdate()
      .first()) as ExportRow | undefined;
    return row && toRecord(row);
  }

  /** The account's exports still INITIATED or PROCESSING, of every campaign: what its asset-export job cap counts. */
  async countRunning(trx: Knex.Transaction, accountId: number): Promise<number> {
    const [{ running }] = await trx('exports').where({ account_id: accountId, running: 1 }).count({ running: '*' });
    return Number(running);
  }

  /** A new export, running; the unique key on (kind, running) refuses a second running one. */
  async insert(trx: Knex.Transaction, record: Omit<ExportRecord, 'createdAt' | 'manifestJson' | 'totalItems'>): Promise<void> {
    await trx('exports').insert({
      queue_id: record.queueId,
      account_id: record.accountId,
      org_id: record.orgId,
      retail_campaign_id: record.retailCampaignId,
      campaign_name: record.campaignName,
      template_idx: record.templateIdx,
      asset_export_type: record.assetExportType,
      resolution: record.resolution,
      is_preview: record.isPreview,
      status: record.status,
      status_message: record.statusMessage,
      running: 1,
      object_path: record.objectPath,
    });
  }

  async find(accountId: number, queueId: string): Promise<ExportRecord | undefined> {
    const [row] = await this.db.execute<ExportRow>('SELECT * FROM exports WHERE queue_id = ? AND account_id = ?', [queueId, accountId]);
    return row && toRecord(row);
  }

  async findForUpdate(trx: Knex.Transaction, accountId: number, queueId: string): Promise<ExportRecord | undefined> {
    const row = (await trx('exports').where({ queue_id: queueId, account_id: accountId }).forUpdate().first()) as ExportRow | undefined;
    return row && toRecord(row);
  }

  /**
   * The campaign's newest exports, newest first, optionally of one format and resolution, without their
   * manifests: what the status read (polled while an export runs) lists.
   */
  async ofCampaign(
    accountId: number,
    retailCampaignId: number,
    filter: { assetExportType?: string; resolution?: number; isPreview: boolean },
  ): Promise<ExportSummary[]> {
    // A prepared statement (one of four texts, by the filters given): this read is polled while an export runs.
    const params: (string | number)[] = [accountId, retailCampaignId, filter.isPreview ? 1 : 0];
    let where = 'account_id = ? AND retail_campaign_id = ? AND is_preview = ?';
    if (filter.assetExportType !== undefined) {
      where += ' AND asset_export_type = ?';
      params.push(filter.assetExportType);
    }
    if (filter.resolution !== undefined) {
      where += ' AND resolution = ?';
      params.push(filter.resolution);
    }
    const rows = await this.db.execute<Omit<ExportRow, 'manifest'>>(
      `SELECT ${SUMMARY_COLUMNS.join(', ')} FROM exports WHERE ${where} ORDER BY export_id DESC LIMIT ${CAMPAIGN_EXPORTS_READ}`,
      params,
    );
    return rows.map(toSummary);
  }

  /** The newest completed export of a format, full or preview (any resolution, lowest first on ties) with its manifest. */
  async latestCompleted(accountId: number, retailCampaignId: number, assetExportType: ExportAssetType, isPreview: boolean): Promise<ExportRecord | undefined> {
    const row = (await this.db
      .knex('exports')
      .where({ account_id: accountId, retail_campaign_id: retailCampaignId, asset_export_type: assetExportType, is_preview: isPreview, status: 'COMPLETED' })
      .orderBy([
        { column: 'export_id', order: 'desc' },
        { column: 'resolution', order: 'asc' },
      ])
      .first()) as ExportRow | undefined;
    return row && toRecord(row);
  }

  /** Stores a move; a finished export leaves the running slot, so the next start of its kind makes a new one. */
  async record(trx: Knex.Transaction, accountId: number, queueId: string, outcome: ExportOutcome): Promise<void> {
    const finished = FINISHED_EXPORT_STATUSES.includes(outcome.status);
    await trx('exports')
      .where({ queue_id: queueId, account_id: accountId })
      .update({
        status: outcome.status,
        status_message: outcome.statusMessage.slice(0, 2000),
        manifest: outcome.manifestJson,
        total_items: outcome.totalItems,
        running: finished ? null : 1,
        updated_at: trx.raw('CURRENT_TIMESTAMP(3)'),
      });
  }
}
