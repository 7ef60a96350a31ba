import { MEDIA_CHANNEL_DELETED_STATUS, PERMISSIONS } from '@contracts/domain';
import { channelsPlansV1 as v1 } from '@contracts/proto';
import { unary } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import type { CallGuard } from '@platform/service';
import type { MediaChannelRecord } from './media-channel.model';
import type { MediaChannelService } from './media-channel.service';

const toMediaChannel = (record: MediaChannelRecord, isUtilized?: boolean): v1.MediaChannel => ({
  idx: record.idx,
  name: record.name,
  adServerId: record.adServerId,
  adServerName: record.adServerName ?? undefined,
  status: record.deletedAt ? MEDIA_CHANNEL_DELETED_STATUS : record.status,
  type: record.type,
  logoUrl: record.logoUrl ?? undefined,
  activationConfiguration: { tagGeneration: record.tagGeneration, creativeGeneration: record.creativeGeneration },
  additionalConfigurationJson: record.additionalConfigurationJson ?? undefined,
  updatedTime: record.updatedAt.toISOString(),
  isUtilized,
});

type MediaChannelHandlers = Pick<
  v1.ChannelsPlansServiceServer,
  | 'createMediaChannel'
  | 'updateMediaChannel'
  | 'listMediaChannels'
  | 'getMediaChannel'
  | 'deleteMediaChannel'
  | 'getAdServerConnection'
  | 'listTemplateCampaignMediaChannels'
>;

export function mediaChannelGrpc({
  logger,
  guard,
  mediaChannels,
}: {
  logger: Logger;
  guard: CallGuard;
  mediaChannels: MediaChannelService;
}): MediaChannelHandlers {
  return {
    createMediaChannel: unary(logger, 'CreateMediaChannel', async (request, call) => {
      guard.org(call, PERMISSIONS.mediaChannelAll, request.orgId);
      const idx = await mediaChannels.create(request.orgId, {
        name: request.name,
        adServerId: request.adServerId,
        type: request.type,
        tagGeneration: request.activationConfiguration?.tagGeneration ?? false,
        creativeGeneration: request.activationConfiguration?.creativeGeneration ?? false,
        additionalConfigurationJson: request.additionalConfigurationJson ?? null,
      });
      return { idx };
    }),

    updateMediaChannel: unary(logger, 'UpdateMediaChannel', async (request, call) => {
      guard.org(call, PERMISSIONS.mediaChannelAll, request.orgId);
      await mediaChannels.update(request.orgId, request.idx, {
        status: request.status,
        tagGeneration: request.activationConfiguration?.tagGeneration,
        creativeGeneration: request.activationConfiguration?.creativeGeneration,
        additionalConfigurationJson: request.additionalConfigurationJson,
      });
      return {};
    }),

    listMediaChannels: unary(logger, 'ListMediaChannels', async (request, call) => {
      guard.org(call, PERMISSIONS.mediaChannelAll, request.orgId);
      const page = await mediaChannels.list(request.orgId, request.page);
      return { mediaChannels: page.items.map((record) => toMediaChannel(record)), total: page.total };
    }),

    getMediaChannel: unary(logger, 'GetMediaChannel', async (request, call) => {
      guard.org(call, PERMISSIONS.mediaChannelAll, request.orgId);
      const channel = await mediaChannels.get(request.orgId, request.idx);
      return { mediaChannel: toMediaChannel(channel) };
    }),

    deleteMediaChannel: unary(logger, 'DeleteMediaChannel', async (request, call) => {
      guard.org(call, PERMISSIONS.mediaChannelAll, request.orgId);
      await mediaChannels.remove(request.orgId, request.idx);
      return {};
    }),

    getAdServerConnection: unary(logger, 'GetAdServerConnection', async (request, call) => {
      guard.org(call, PERMISSIONS.mediaChannelAll, request.orgId);
      const connection = await mediaChannels.connection(request.orgId, request.adServerId);
      return { apiEndpoint: connection.apiEndpoint, apiKey: connection.apiKey };
    }),

    listTemplateCampaignMediaChannels: unary(logger, 'ListTemplateCampaignMediaChannels', async (request, call) => {
      const principal = guard.account(call, PERMISSIONS.mediaChannelView, request.accountId);
      const page = await mediaChannels.listForTemplateCampaign(
        { orgId: principal.orgId, isRetailer: principal.org.isRetailer },
        request.accountId,
        request.templateCampaignIdx,
        request.page,
      );
      return { mediaChannels: page.items.map((record) => toMediaChannel(record, record.isUtilized)), count: page.total };
    }),
  };
}
