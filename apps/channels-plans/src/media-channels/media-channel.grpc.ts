import { CHANNELS_PLANS_ACCESS, MEDIA_CHANNEL_DELETED_STATUS } from '@contracts/domain';
import { channelsPlansV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
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
  return unaryHandlers(v1.ChannelsPlansServiceService, CHANNELS_PLANS_ACCESS, logger, {
    createMediaChannel: async (request, call) => {
      guard.org(call, request.orgId);
      const idx = await mediaChannels.create(request.orgId, {
        name: request.name,
        adServerId: request.adServerId,
        type: request.type,
        tagGeneration: request.activationConfiguration?.tagGeneration ?? false,
        creativeGeneration: request.activationConfiguration?.creativeGeneration ?? false,
        additionalConfigurationJson: request.additionalConfigurationJson ?? null,
      });
      return { idx };
    },

    updateMediaChannel: async (request, call) => {
      guard.org(call, request.orgId);
      await mediaChannels.update(request.orgId, request.idx, {
        status: request.status,
        tagGeneration: request.activationConfiguration?.tagGeneration,
        creativeGeneration: request.activationConfiguration?.creativeGeneration,
        additionalConfigurationJson: request.additionalConfigurationJson,
      });
      return {};
    },

    listMediaChannels: async (request, call) => {
      guard.org(call, request.orgId);
      const page = await mediaChannels.list(request.orgId, request.page);
      return { mediaChannels: page.items.map((record) => toMediaChannel(record)), total: page.total };
    },

    getMediaChannel: async (request, call) => {
      guard.org(call, request.orgId);
      const channel = await mediaChannels.get(request.orgId, request.idx);
      return { mediaChannel: toMediaChannel(channel) };
    },

    deleteMediaChannel: async (request, call) => {
      guard.org(call, request.orgId);
      await mediaChannels.remove(request.orgId, request.idx);
      return {};
    },

    getAdServerConnection: async (request, call) => {
      guard.org(call, request.orgId);
      const connection = await mediaChannels.connection(request.orgId, request.adServerId);
      return { apiEndpoint: connection.apiEndpoint, apiKey: connection.apiKey };
    },

    listTemplateCampaignMediaChannels: async (request, call) => {
      const principal = guard.account(call, request.accountId);
      const page = await mediaChannels.listForTemplateCampaign(
        { orgId: principal.orgId, isRetailer: principal.org.isRetailer },
        request.accountId,
        request.templateCampaignIdx,
        request.page,
      );
      return { mediaChannels: page.items.map((record) => toMediaChannel(record, record.isUtilized)), count: page.total };
    },
  });
}
