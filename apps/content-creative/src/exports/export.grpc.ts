import { CONTENT_CREATIVE_ACCESS, type ExportJobStatus } from '@contracts/domain';
import { contentCreativeV1 as v1 } from '@contracts/proto';
import type { PeerOf } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import type { AssetSourcesPeer } from '../peers/asset-sources.peer';
import type { ChannelsPlansPeer } from '../peers/channels-plans.peer';
import type { StorageLibraryPeer } from '../peers/storage-library.peer';
import type { ExportService } from './export.service';

export function exportGrpc({
  logger,
  guard,
  exports,
  assetSources,
  channelsPlans,
  storageLibrary,
}: {
  logger: Logger;
  guard: CallGuard;
  exports: ExportService;
  assetSources: PeerOf<AssetSourcesPeer>;
  channelsPlans: PeerOf<ChannelsPlansPeer>;
  storageLibrary: PeerOf<StorageLibraryPeer>;
}): Pick<v1.ContentCreativeServiceServer, 'startExport' | 'getExportStatus' | 'getExportManifest' | 'getExportWork' | 'recordExportOutcome'> {
  return unaryHandlers(v1.ContentCreativeServiceService, CONTENT_CREATIVE_ACCESS, logger, {
    startExport: async (request, call) => {
      const principal = guard.account(call, request.accountId);
      return exports.start({ orgId: principal.orgId }, request, channelsPlans(call), storageLibrary(call));
    },

    getExportStatus: async (request, call) => {
      guard.account(call, request.accountId);
      const entries = await exports.status(
        {
          accountId: request.accountId,
          retailCampaignId: request.retailCampaignId,
          assetExportType: request.assetExportType,
          resolution: request.resolution,
          isPreviewExport: request.isPreviewExport,
        },
        channelsPlans(call),
      );
      return {
        entries: entries.map((entry) => ({
          assetExportType: entry.assetExportType,
          resolutions: entry.resolutions.map((r) => ({ ...r, objectPath: r.objectPath ?? undefined })),
        })),
      };
    },

    getExportManifest: async (request, call) => {
      guard.account(call, request.accountId);
      const record = await exports.manifest(request.accountId, request.retailCampaignId, request.queueId);
      return {
        queueId: record.queueId,
        status: record.status,
        statusMessage: record.statusMessage,
        manifestJson: record.manifestJson ?? undefined,
        objectPath: record.status === 'COMPLETED' ? record.objectPath : undefined,
      };
    },

    getExportWork: async (request, call) => {
      guard.peer(call, request.accountId);
      const { record, items, campaignStatus } = await exports.work(request.accountId, request.queueId, channelsPlans(call), assetSources(call));
      return {
        queueId: record.queueId,
        retailCampaignId: record.retailCampaignId,
        campaignName: record.campaignName,
        templateIdx: record.templateIdx ?? undefined,
        assetExportType: record.assetExportType,
        resolution: record.resolution,
        objectPath: record.objectPath,
        status: record.status,
        createdAt: record.createdAt.toISOString(),
        items: items.map((item) => ({ ...item, rowJson: item.rowJson ?? undefined })),
        isPreview: record.isPreview,
        campaignStatus,
      };
    },

    recordExportOutcome: async (request, call) => {
      guard.peer(call, request.accountId);
      await exports.record(request.accountId, request.queueId, {
        status: request.status as ExportJobStatus,
        statusMessage: request.statusMessage,
        manifestJson: request.manifestJson ?? null,
        totalItems: request.totalItems,
      });
      return {};
    },
  });
}
