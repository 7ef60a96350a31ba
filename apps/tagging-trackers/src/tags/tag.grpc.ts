import { type SingleTagKind, TAGGING_TRACKERS_ACCESS } from '@contracts/domain';
import { taggingTrackersV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import type { PeerOf } from '@platform/grpc';
import type { ChannelsPlansPeer } from '../peers/channels-plans.peer';
import type { SingleTagOptions } from './tag.model';
import type { TagService } from './tag.service';

export const toOptions = (r: v1.GenerateTagRequest): SingleTagOptions => ({
  // An unknown kind is refused by the service's rules.
  kind: r.kind as SingleTagKind,
  campaignId: r.campaignId,
  adServerId: r.adServerId,
  includeAdChoices: r.includeAdChoices,
  additionalParamsJson: r.additionalParamsJson,
  privacy: r.privacy.map((p) => ({ include: p.include, type: p.type, consentMacro: p.consentMacro })),
  secureTags: r.secureTags,
  dataSignalMap: r.dataSignalMap,
  adUnitId: r.adUnitId,
  enableNoScriptTag: r.enableNoScriptTag,
  enableForMobileApp: r.enableForMobileApp,
  thirdPartyTrackingScript: r.thirdPartyTrackingScript,
  mobileResponsiveOptions: r.mobileResponsiveOptions,
  tagType: r.tagType,
  playerType: r.playerType,
  isDynamicPriVideo: r.isDynamicPriVideo,
  baseAdUnitId: r.baseAdUnitId,
  behaviourAdUnitTypeId: r.behaviourAdUnitTypeId,
  useCustomLayout: r.useCustomLayout,
});

export function tagGrpc({
  logger,
  guard,
  channelsPlans,
  tags,
}: {
  logger: Logger;
  guard: CallGuard;
  channelsPlans: PeerOf<ChannelsPlansPeer>;
  tags: TagService;
}): Pick<v1.TaggingTrackersServiceServer, 'generateTag' | 'listCampaignTags'> {
  return unaryHandlers(v1.TaggingTrackersServiceService, TAGGING_TRACKERS_ACCESS, logger, {
    generateTag: async (request, call) => {
      guard.account(call, request.accountId);
      return tags.generate(channelsPlans(call), request.accountId, request.mediaPlanId, request.placementId, toOptions(request));
    },

    listCampaignTags: async (request, call) => {
      guard.account(call, request.accountId);
      const page = await tags.campaignTags(channelsPlans(call), request.accountId, request.retailCampaignId, request.afterTagMetadataId, request.limit);
      return { campaignName: page.campaignName, rows: page.rows };
    },
  });
}
