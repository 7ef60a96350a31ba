import { CHANNELS_PLANS_ACCESS } from '@contracts/domain';
import { channelsPlansV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import type { AdGroupService } from './ad-group.service';

type AdGroupHandlers = Pick<v1.ChannelsPlansServiceServer, 'createAdGroup' | 'listAdGroups'>;

export function adGroupGrpc({ logger, guard, adGroups }: { logger: Logger; guard: CallGuard; adGroups: AdGroupService }): AdGroupHandlers {
  return unaryHandlers(v1.ChannelsPlansServiceService, CHANNELS_PLANS_ACCESS, logger, {
    createAdGroup: async (request, call) => {
      guard.account(call, request.accountId);
      const adGroupId = await adGroups.create(request.accountId, request.retailCampaignId, request.adGroupName);
      return { adGroupId };
    },

    listAdGroups: async (request, call) => {
      guard.account(call, request.accountId);
      const records = await adGroups.list(request.accountId, request.retailCampaignId);
      return { adGroups: records.map((r) => ({ adGroupId: r.adGroupId, adGroupName: r.adGroupName })) };
    },
  });
}
