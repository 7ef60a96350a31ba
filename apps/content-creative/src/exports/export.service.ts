import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import {
  campaignNotActive,
  EXPORT_ASSET_TYPES,
  EXPORT_JOB_KIND,
  JOB_CONCURRENCY_CAPS,
  EXPORT_LIMITS,
  EXPORT_RESOLUTIONS,
  exportResolutionRefusal,
  exportStatusChanged,
  exportZipName,
  FINISHED_EXPORT_STATUSES,
  HIGH_RESOLUTION_EXPORT_TYPES,
  PREVIEW_EXPORT,
  type AssetExportJob,
  type ExportAssetType,
  type ExportJobStatus,
  type ExportStatus,
} from '@contracts/domain';
import { AppError, enforce, enforceAt, problem, validationFailed, type FieldError } from '@platform/errors';
import { admitJob, announceQueued, jobAcceptedEntries, type JobProgress, type QueueViewAnnouncer } from '@platform/jobs';
import type { Logger } from '@platform/logging';
import { isDuplicateKey, withTransaction } from '@platform/mysql';
import { recordChange, type EventOutbox, type ViewChangeAnnouncer } from '@platform/service';
import type { ContentMapRepository } from '../content-maps/content-map.repository';
import { rowsOfMap, type AssetSourcesPeer } from '../peers/asset-sources.peer';
import type { ChannelsPlansPeer } from '../peers/channels-plans.peer';
import type { ExportKind, ExportOutcome, ExportRecord, ExportSummary, ExportWorkItem } from './export.model';
import type { ExportRepository } from './export.repository';

export interface StartedExport {
  queueId: string;
  status: ExportJobStatus;
  message: string;
}

/** One resolution's line of the status read. */
export interface ExportResolutionView {
  status: ExportStatus;
  /** Set only for COMPLETED and AVAILABLE. */
  objectPath: string | null;
  resolution: number;
  statusMessage: string;
  /** Empty for NOT_INITIATED. */
  queueId: string;
}

export interface ExportStatusView {
  assetExportType: string;
  resolutions: ExportResolutionView[];
}

export interface ExportWork {
  record: ExportRecord;
  items: ExportWorkItem[];
  /** The campaign's status now (the renderer refuses one no longer ACTIVE); empty for a finished export. */
  campaignStatus: string;
}

const exportNotFound = (queueId: string) => problem('EXPORT_NOT_FOUND', `Export ${queueId} was not found.`);
const RECORDABLE: readonly ExportJobStatus[] = ['PROCESSING', 'COMPLETED', 'FAILED'];

/**
 * The formats and resolutions a status filter names: a format with its resolution, or every resolution
 * the format supports (a preview export is png at 1 only); nothing when the filter names no format.
 */
function namedKinds(filter: { assetExportType?: string; resolution?: number; isPreviewExport: boolean }): [ExportAssetType, number][] {
  const type = filter.assetExportType as ExportAssetType | undefined;
  if (type === undefined || !EXPORT_ASSET_TYPES.includes(type)) return [];
  if (filter.isPreviewExport && type !== PREVIEW_EXPORT.assetExportType) return [];
  const supported: number[] = filter.isPreviewExport
    ? [PREVIEW_EXPORT.resolution]
    : EXPORT_RESOLUTIONS.filter((r) => r === 1 || HIGH_RESOLUTION_EXPORT_TYPES.includes(type));
  return supported.filter((r) => filter.resolution === undefined || r === filter.resolution).map((r) => [type, r]);
}

/**
 * Creative exports of retail campaigns: accepting one (job row and request in one transaction), the
 * status read, the manifest, and the two things the export renderer asks: what to render, and how it went.
 */
export class ExportService {
  constructor(
    private readonly knex: Knex,
    private readonly events: EventOutbox,
    private readonly exports: ExportRepository,
    private readonly maps: ContentMapRepository,
    /** The status read is a cached view of the gateways: each committed start and move is announced before it answers. */
    private readonly announceViewChange: ViewChangeAnnouncer,
    private readonly logger: Logger,
    /** Exports one account may have running at once (JOB_CONCURRENCY_CAPS). */
    private readonly runningCap: number | undefined = JOB_CONCURRENCY_CAPS[EXPORT_JOB_KIND],
  ) {}

  async start(
    caller: { orgId: string },
    request: { accountId: number; retailCampaignId: number; assetExportType: string; resolution: number; isPreviewExport?: boolean },
    channels: ChannelsPlansPeer,
    queueView?: QueueViewAnnouncer,
  ): Promise<StartedExport> {
    const errors: FieldError[] = [];
    if (!(EXPORT_ASSET_TYPES as readonly string[]).includes(request.assetExportType))
      errors.push({ pointer: '/assetExportType', code: 'NOT_ALLOWED', detail: `assetExportType must be one of ${EXPORT_ASSET_TYPES.join(', ')}.` });
    if (!(EXPORT_RESOLUTIONS as readonly number[]).includes(request.resolution))
      errors.push({ pointer: '/resolution', code: 'NOT_ALLOWED', detail: 'resolution must be 1 or 2.' });
    const isPreview = request.isPreviewExport === true;
    if (isPreview && request.assetExportType !== PREVIEW_EXPORT.assetExportType)
      errors.push({ pointer: '/assetExportType', code: 'NOT_ALLOWED', detail: 'A preview export is png at resolution 1.' });
    if (isPreview && request.resolution !== PREVIEW_EXPORT.resolution)
      errors.push({ pointer: '/resolution', code: 'NOT_ALLOWED', detail: 'A preview export is png at resolution 1.' });
    if (errors.length > 0) throw validationFailed(errors);
    enforceAt('/resolution', exportResolutionRefusal(request.assetExportType, request.resolution));

    const campaign = await channels.campaign(request.accountId, request.retailCampaignId);
    enforce(campaignNotActive(campaign, 'Creatives can be exported'));

    const kind: ExportKind = {
      accountId: request.accountId,
      retailCampaignId: request.retailCampaignId,
      assetExportType: request.assetExportType as ExportAssetType,
      resolution: request.resolution,
      isPreview,
    };
    const queueId = randomUUID();
    const zipName = exportZipName(campaign.campaignName, kind.assetExportType, kind.resolution, isPreview);
    const objectPath = `exports/retail-campaign-${request.retailCampaignId}/${queueId}/${zipName}`;
    const accept = () =>
      withTransaction(this.knex, async (trx): Promise<StartedExport & { queued?: JobProgress }> => {
        const running = await this.exports.runningForUpdate(trx, kind);
        if (running)
          return {
            queueId: running.queueId,
            status: running.status,
            message: `${isPreview ? 'A preview export' : 'An export of this format and resolution'} is already ${running.status}.`,
          };
        // Past the running check: a second start of a running export answers that export, never 429.
        await admitJob(trx, {
          accountId: kind.accountId,
          kind: EXPORT_JOB_KIND,
          cap: this.runningCap,
          countActive: (t) => this.exports.countRunning(t, kind.accountId),
        });
        const record = {
          queueId,
          accountId: kind.accountId,
          orgId: caller.orgId,
          retailCampaignId: kind.retailCampaignId,
          campaignName: campaign.campaignName,
          templateIdx: campaign.templateIdx,
          assetExportType: kind.assetExportType,
          resolution: kind.resolution,
          isPreview,
          status: 'INITIATED' as const,
          statusMessage: '',
          objectPath,
        };
        await this.exports.insert(trx, record);
        await recordChange(trx, this.events, { resourceType: 'export', resourceId: queueId, action: 'create', accountId: kind.accountId, after: record });
        const payload: AssetExportJob = {
          orgId: caller.orgId,
          retailCampaignId: kind.retailCampaignId,
          assetExportType: kind.assetExportType,
          resolution: kind.resolution as AssetExportJob['resolution'],
          objectPath,
        };
        const { entries, queued } = jobAcceptedEntries({ queueId, accountId: kind.accountId, kind: EXPORT_JOB_KIND, payload }, Date.now());
        for (const entry of entries) await this.events.record(trx, entry);
        return { queueId, status: 'INITIATED', message: isPreview ? 'The preview export has started.' : 'The export has started.', queued };
      });
    let started: StartedExport & { queued?: JobProgress };
    try {
      started = await accept();
    } catch (error) {
      // A start that raced another to the running slot answers the one that won.
      if (!isDuplicateKey(error, 'ux_exports_running')) throw error;
      started = await accept();
    }
    const { queued, ...answer } = started;
    if (queued) {
      // A new export (not the running one answered again) changes what the status read shows.
      await this.statusChanged(kind.accountId);
      await announceQueued(queueView, queued, this.logger);
    }
    return answer;
  }

  /**
   * The latest export per format and resolution, of full exports or of preview exports. Besides the
   * stored statuses: AVAILABLE for the newest earlier COMPLETED export while a newer one is running or
   * failed (its zip is still served), NOT_INITIATED for each format and resolution the filter names
   * (a format names every resolution it supports) that was never exported, and ARCHIVED for every
   * line of an archived campaign (no url: the campaign is retired).
   */
  async status(
    request: { accountId: number; retailCampaignId: number; assetExportType?: string; resolution?: number; isPreviewExport: boolean },
    channels: ChannelsPlansPeer,
  ): Promise<ExportStatusView[]> {
    const campaign = await channels.campaign(request.accountId, request.retailCampaignId);
    const records = await this.exports.ofCampaign(request.accountId, request.retailCampaignId, {
      assetExportType: request.assetExportType,
      resolution: request.resolution,
      isPreview: request.isPreviewExport,
    });
    const archived = campaign.status === 'ARCHIVED';
    const byType = new Map<string, Map<number, ExportSummary[]>>();
    for (const record of records) {
      const resolutions = byType.get(record.assetExportType) ?? new Map<number, ExportSummary[]>();
      resolutions.set(record.resolution, [...(resolutions.get(record.resolution) ?? []), record]);
      byType.set(record.assetExportType, resolutions);
    }
    for (const [type, resolution] of namedKinds(request)) {
      const resolutions = byType.get(type) ?? new Map<number, ExportSummary[]>();
      if (!resolutions.has(resolution)) resolutions.set(resolution, []);
      byType.set(type, resolutions);
    }
    const line = (record: ExportSummary, status: ExportStatus): ExportResolutionView => ({
      status,
      objectPath: status === 'COMPLETED' || status === 'AVAILABLE' ? record.objectPath : null,
      resolution: record.resolution,
      statusMessage: record.statusMessage,
      queueId: record.queueId,
    });
    const never = (resolution: number): ExportResolutionView => ({
      status: archived ? 'ARCHIVED' : 'NOT_INITIATED',
      objectPath: null,
      resolution,
      statusMessage: archived ? '' : `No ${request.isPreviewExport ? 'preview ' : ''}export of this format and resolution has been started.`,
      queueId: '',
    });
    return EXPORT_ASSET_TYPES.filter((type) => byType.has(type)).map((type) => ({
      assetExportType: type,
      resolutions: [...(byType.get(type) as Map<number, ExportSummary[]>).entries()]
        .sort(([a], [b]) => a - b)
        .flatMap(([resolution, newestFirst]) => {
          const [latest] = newestFirst;
          if (!latest) return [never(resolution)];
          if (archived) return [line(latest, 'ARCHIVED')];
          if (latest.status === 'COMPLETED') return [line(latest, 'COMPLETED')];
          const earlier = newestFirst.find((r) => r.status === 'COMPLETED');
          return earlier ? [line(latest, latest.status), line(earlier, 'AVAILABLE')] : [line(latest, latest.status)];
        }),
    }));
  }

  async manifest(accountId: number, retailCampaignId: number, queueId: string): Promise<ExportRecord> {
    const record = await this.exports.find(accountId, queueId);
    if (!record || record.retailCampaignId !== retailCampaignId) throw exportNotFound(queueId);
    return record;
  }

  /** The newest completed preview export with its manifest, for the content map read's previewUrls; undefined without one. */
  async latestPreviewExport(accountId: number, retailCampaignId: number): Promise<ExportRecord | undefined> {
    return this.exports.latestCompleted(accountId, retailCampaignId, PREVIEW_EXPORT.assetExportType, true);
  }

  /**
   * What one export renders: every content item on every placement of the campaign's content maps
   * (a preview export: the first `EXPORT_LIMITS.previewItemsPerPlacement` of each placement), with its
   * row in the map's asset source and the placement's current name and dimension; and the campaign's
   * status now.
   */
  async work(accountId: number, queueId: string, channels: ChannelsPlansPeer, assets: AssetSourcesPeer): Promise<ExportWork> {
    const record = await this.exports.find(accountId, queueId);
    if (!record) throw exportNotFound(queueId);
    if (FINISHED_EXPORT_STATUSES.includes(record.status)) return { record, items: [], campaignStatus: '' };
    // The renderer waits for this answer before it draws: what does not depend on another read is asked at once.
    const [{ status: campaignStatus }, maps] = await Promise.all([
      channels.campaign(accountId, record.retailCampaignId),
      this.maps.ofCampaign(accountId, record.retailCampaignId),
    ]);
    const items: ExportWorkItem[] = [];
    for (const map of maps) {
      const sampled = record.isPreview
        ? { ...map, placements: map.placements.map((p) => ({ ...p, content: p.content.slice(0, EXPORT_LIMITS.previewItemsPerPlacement) })) }
        : map;
      const reading = rowsOfMap(assets, accountId, sampled);
      // Handled here too: a plan read that fails first leaves this one unawaited.
      void reading.catch(() => undefined);
      const plan = await channels.plan(accountId, map.mediaPlanId).catch((error: unknown) => {
        // A plan deleted since the map was saved has nothing left to render.
        if (error instanceof AppError && error.status === 404) return undefined;
        throw error;
      });
      // A deleted plan's rows are not needed, nor is a failure to read them.
      if (!plan) continue;
      const current = new Map(plan.placements.map((p) => [p.placementId, p]));
      const rows = await reading;
      for (const placement of sampled.placements) {
        const now = current.get(placement.placementId);
        if (!now) continue;
        for (const contentValue of placement.content) {
          const row = rows.get(contentValue);
          items.push({
            mediaPlanId: map.mediaPlanId,
            placementId: placement.placementId,
            placementName: now.placementName,
            dimension: now.dimension,
            contentValue,
            rowJson: row ? JSON.stringify(row) : null,
          });
          // One past the limit is enough for the renderer to refuse the export as too large.
          if (items.length > EXPORT_LIMITS.maxAssets) return { record, items, campaignStatus };
        }
      }
    }
    return { record, items, campaignStatus };
  }

  /**
   * The renderer's report: a finished export stays as it ended (a redelivered job re-reports nothing
   * new). FAILED for an export that never was PROCESSING is stored as FAILED_TO_INITIATE: the renderer
   * refused it at intake, or its request was given up after the last delivery, before any drawing.
   */
  async record(accountId: number, queueId: string, outcome: ExportOutcome): Promise<void> {
    if (!RECORDABLE.includes(outcome.status))
      throw validationFailed([{ pointer: '/status', code: 'NOT_ALLOWED', detail: 'status must be PROCESSING, COMPLETED or FAILED.' }]);
    const moved = await withTransaction(this.knex, async (trx) => {
      const record = await this.exports.findForUpdate(trx, accountId, queueId);
      if (!record) throw exportNotFound(queueId);
      if (FINISHED_EXPORT_STATUSES.includes(record.status)) return false;
      const status = outcome.status === 'FAILED' && record.status === 'INITIATED' ? 'FAILED_TO_INITIATE' : outcome.status;
      await this.exports.record(trx, accountId, queueId, { ...outcome, status });
      return true;
    });
    if (moved) await this.statusChanged(accountId);
  }

  /** After the commit, before the answer: no gateway replica may then serve a status read from before it. */
  private async statusChanged(accountId: number): Promise<void> {
    await this.announceViewChange(exportStatusChanged(accountId));
  }
}
