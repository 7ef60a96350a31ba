import type { ExportAssetType, ExportJobStatus } from '@contracts/domain';

/** One export job as content-creative stores it. */
export interface ExportRecord {
  queueId: string;
  accountId: number;
  orgId: string;
  retailCampaignId: number;
  campaignName: string;
  templateIdx: number | null;
  assetExportType: ExportAssetType;
  resolution: number;
  isPreview: boolean;
  status: ExportJobStatus;
  statusMessage: string;
  /** Where the zip goes, relative to the account's files. */
  objectPath: string;
  /** manifest.json as the renderer wrote it; null until the export ends. */
  manifestJson: string | null;
  totalItems: number;
  createdAt: Date;
}

/** An export without its manifest, as lists of exports read it. */
export type ExportSummary = Omit<ExportRecord, 'manifestJson'>;

/** Which exports one start competes with: a campaign's exports of one format and resolution. */
export interface ExportKind {
  accountId: number;
  retailCampaignId: number;
  assetExportType: ExportAssetType;
  resolution: number;
  isPreview: boolean;
}

/** A move the renderer reports. */
export interface ExportOutcome {
  status: ExportJobStatus;
  statusMessage: string;
  manifestJson: string | null;
  totalItems: number;
}

/** One creative an export renders: a content item on a placement of one of the campaign's media plans. */
export interface ExportWorkItem {
  mediaPlanId: number;
  placementId: number;
  placementName: string;
  dimension: string;
  contentValue: string;
  /** The item's row in the map's asset source, JSON text; null when it has none. */
  rowJson: string | null;
}
