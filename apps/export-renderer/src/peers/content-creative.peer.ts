import type { ExportAssetType, ExportJobStatus } from '@contracts/domain';
import type { contentCreativeV1 } from '@contracts/proto';
import type { PromiseClient } from '@platform/grpc';

/** One creative (or carousel card) to draw: a content item on a placement. */
export interface WorkItem {
  mediaPlanId: number;
  placementId: number;
  placementName: string;
  dimension: string;
  contentValue: string;
  row: Record<string, unknown> | null;
}

export interface ExportWork {
  queueId: string;
  retailCampaignId: number;
  campaignName: string;
  templateIdx: number | null;
  assetExportType: ExportAssetType;
  resolution: number;
  objectPath: string;
  status: ExportJobStatus;
  createdAt: string;
  items: WorkItem[];
  /** A preview export: the first few items of each placement, each file also stored on its own. */
  isPreview: boolean;
  /** The campaign's status now; empty for a finished export. */
  campaignStatus: string;
}

/** What the renderer asks content-creative, which owns export jobs. */
export interface ContentCreativePeer {
  work(accountId: number, queueId: string): Promise<ExportWork>;
  record(
    accountId: number,
    queueId: string,
    outcome: { status: ExportJobStatus; statusMessage: string; manifestJson?: string; totalItems: number },
  ): Promise<void>;
}

export function contentCreativePeer(client: PromiseClient<contentCreativeV1.ContentCreativeServiceClient>): ContentCreativePeer {
  return {
    async work(accountId, queueId) {
      const work = await client.getExportWork({ accountId, queueId });
      return {
        queueId: work.queueId,
        retailCampaignId: work.retailCampaignId,
        campaignName: work.campaignName,
        templateIdx: work.templateIdx ?? null,
        assetExportType: work.assetExportType as ExportAssetType,
        resolution: work.resolution,
        objectPath: work.objectPath,
        status: work.status as ExportJobStatus,
        createdAt: work.createdAt,
        isPreview: work.isPreview,
        campaignStatus: work.campaignStatus,
        items: work.items.map((item) => ({
          mediaPlanId: item.mediaPlanId,
          placementId: item.placementId,
          placementName: item.placementName,
          dimension: item.dimension,
          contentValue: item.contentValue,
          row: item.rowJson ? (JSON.parse(item.rowJson) as Record<string, unknown>) : null,
        })),
      };
    },
    async record(accountId, queueId, outcome) {
      await client.recordExportOutcome({ accountId, queueId, ...outcome });
    },
  };
}
