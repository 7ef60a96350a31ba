import { channelsPlansV1 as v1 } from '@contracts/proto';
import { accountNotFound, assertAccountScope, assertOrgScope, assertPermission, orgNotFound, Principal, readPrincipal, ServerUnaryCall, unary } from '@platform/grpc';
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logging';
import { AdServerRepository } from '../ad-servers/ad-server.repository';
import { MediaChannelRecord } from '../media-channels/media-channel.model';
import { MediaChannelService } from '../media-channels/media-channel.service';
import { RetailCampaignRecord, RetailCampaignService } from '../retail-campaigns/retail-campaign.service';
import { mediaChannelPermissions as P } from './permissions';

export interface ChannelsPlansGrpcDeps {
  logger: Logger;
  principalKey: Buffer;
  adServers: AdServerRepository;
  mediaChannels: MediaChannelService;
  retailCampaigns: RetailCampaignService;
}

function toMediaChannel(record: MediaChannelRecord, isUtilized?: boolean): v1.MediaChannel {
  return {
    idx: record.idx,
    name: record.name,
    adServerId: record.adServerId,
    adServerName: record.adServerName ?? undefined,
    status: record.deletedAt ? 'Deleted' : record.status,
    type: record.type,
    logoUrl: record.logoUrl ?? undefined,
    activationConfiguration: { tagGeneration: record.tagGeneration, creativeGeneration: record.creativeGeneration },
    additionalConfigurationJson: record.additionalConfigurationJson ?? undefined,
    updatedTime: record.updatedAt.toISOString(),
    isUtilized,
  };
}

function toRetailCampaign(record: RetailCampaignRecord): v1.RetailCampaign {
  return {
    retailCampaignId: record.retailCampaignId,
    accountId: record.accountId,
    campaignName: record.campaignName,
    templateIdx: record.templateIdx ?? undefined,
    isAdGroupCampaign: record.isAdGroupCampaign,
    isSbt: record.isSbt,
    status: record.status,
    createdTime: record.createdAt.toISOString(),
    updatedTime: record.updatedAt.toISOString(),
  };
}

const notRetailer = (orgId: string) =>
  new AppError(403, 'ORG_NOT_RETAILER', `Organization ${orgId} is not a retailer; template-campaign media channels are for retailer organizations only.`);

const page = (p: v1.PageRequest | undefined) => ({ offset: p?.offset ?? 0, limit: p?.limit || 25 });

/**
 * The gRPC face of channels-plans. Every handler re-verifies the signed principal, its scope and the
 * permission of the operation: the gateway is not the only wall.
 */
export function channelsPlansGrpc(deps: ChannelsPlansGrpcDeps): v1.ChannelsPlansServiceServer {
  const { logger, adServers, mediaChannels, retailCampaigns } = deps;

  const authorize = (call: ServerUnaryCall<unknown, unknown>, permission: string): Principal => {
    const principal = readPrincipal(call.metadata, deps.principalKey);
    assertPermission(principal, permission);
    return principal;
  };
  const forOrg = (call: ServerUnaryCall<unknown, unknown>, permission: string, orgId: string) => {
    const principal = authorize(call, permission);
    assertOrgScope(principal, orgId, () => orgNotFound(orgId));
    return principal;
  };
  const forAccount = (call: ServerUnaryCall<unknown, unknown>, permission: string, accountId: number) => {
    const principal = authorize(call, permission);
    assertAccountScope(principal, accountId, () => accountNotFound(accountId));
    return principal;
  };

  return {
    listAdServers: unary(logger, 'ListAdServers', async (_req, call) => {
      authorize(call, P.adServersView);
      const entries = await adServers.list();
      return { adServers: entries.map((e) => ({ adServerId: e.adServerId, adServerName: e.adServerName, kind: e.kind, logoUrl: e.logoUrl })) };
    }),

    createMediaChannel: unary(logger, 'CreateMediaChannel', async (req, call) => {
      forOrg(call, P.mediaChannelAll, req.orgId);
      const idx = await mediaChannels.create(req.orgId, {
        name: req.name,
        adServerId: req.adServerId,
        type: req.type,
        tagGeneration: req.activationConfiguration?.tagGeneration ?? false,
        creativeGeneration: req.activationConfiguration?.creativeGeneration ?? false,
        additionalConfigurationJson: req.additionalConfigurationJson ?? null,
      });
      return { idx };
    }),

    updateMediaChannel: unary(logger, 'UpdateMediaChannel', async (req, call) => {
      forOrg(call, P.mediaChannelAll, req.orgId);
      await mediaChannels.update(req.orgId, req.idx, {
        status: req.status,
        tagGeneration: req.activationConfiguration?.tagGeneration,
        creativeGeneration: req.activationConfiguration?.creativeGeneration,
        additionalConfigurationJson: req.additionalConfigurationJson,
      });
      return {};
    }),

    listMediaChannels: unary(logger, 'ListMediaChannels', async (req, call) => {
      forOrg(call, P.mediaChannelAll, req.orgId);
      const { offset, limit } = page(req.page);
      const result = await mediaChannels.list(req.orgId, offset, limit);
      return { mediaChannels: result.items.map((r) => toMediaChannel(r)), total: result.total };
    }),

    getMediaChannel: unary(logger, 'GetMediaChannel', async (req, call) => {
      forOrg(call, P.mediaChannelAll, req.orgId);
      return { mediaChannel: toMediaChannel(await mediaChannels.get(req.orgId, req.idx)) };
    }),

    deleteMediaChannel: unary(logger, 'DeleteMediaChannel', async (req, call) => {
      forOrg(call, P.mediaChannelAll, req.orgId);
      await mediaChannels.remove(req.orgId, req.idx);
      return {};
    }),

    getAdServerConnection: unary(logger, 'GetAdServerConnection', async (req, call) => {
      forOrg(call, P.mediaChannelAll, req.orgId);
      return mediaChannels.connection(req.orgId, req.adServerId);
    }),

    listTemplateCampaignMediaChannels: unary(logger, 'ListTemplateCampaignMediaChannels', async (req, call) => {
      const principal = forAccount(call, P.mediaChannelView, req.accountId);
      if (!principal.org.isRetailer) throw notRetailer(principal.orgId);
      await retailCampaigns.get(req.accountId, req.templateCampaignIdx);
      const { offset, limit } = page(req.page);
      const result = await mediaChannels.listForCampaign(principal.orgId, req.templateCampaignIdx, offset, limit);
      return { mediaChannels: result.items.map((r) => toMediaChannel(r, r.isUtilized)), count: result.total };
    }),

    createRetailCampaign: unary(logger, 'CreateRetailCampaign', async (req, call) => {
      forAccount(call, P.retailCampaignsEdit, req.accountId);
      const retailCampaignId = await retailCampaigns.create(req.accountId, req);
      return { retailCampaignId };
    }),

    listRetailCampaigns: unary(logger, 'ListRetailCampaigns', async (req, call) => {
      forAccount(call, P.retailCampaignsView, req.accountId);
      const { offset, limit } = page(req.page);
      const result = await retailCampaigns.list(req.accountId, offset, limit);
      return { retailCampaigns: result.items.map(toRetailCampaign), total: result.total };
    }),

    getRetailCampaign: unary(logger, 'GetRetailCampaign', async (req, call) => {
      forAccount(call, P.retailCampaignsView, req.accountId);
      return { retailCampaign: toRetailCampaign(await retailCampaigns.get(req.accountId, req.retailCampaignId)) };
    }),

    updateRetailCampaign: unary(logger, 'UpdateRetailCampaign', async (req, call) => {
      forAccount(call, P.retailCampaignsEdit, req.accountId);
      await retailCampaigns.update(req.accountId, req.retailCampaignId, { campaignName: req.campaignName, status: req.status });
      return {};
    }),
  };
}
