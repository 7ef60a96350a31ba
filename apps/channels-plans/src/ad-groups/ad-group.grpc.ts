import { PERMISSIONS } from '@contracts/domain';
import { channelsPlansV1 as v1 } from '@contracts/proto';
import { unary } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import type { CallGuard } from '@platform/service';
import type { AdGroupService } from './ad-group.service';

type AdGroupHandlers = Pick<v1.ChannelsPlansServiceServer, 'createAdGroup' | 'listAdGroups'>;

export function adGroupGrpc({ logger, guard, adGroups }: { logger: Logger; guard: CallGuard; adGroups: AdGroupService }): AdGroupHandlers {
  return {
    createAdGroup: unary(logger, 'CreateAdGroup', async (request, call) => {
      guard.account(call, PERMISSIONS.mediaPlanTagsCreate, request.accountId);
      const adGroupId = await adGroups.create(request.accountId, request.retailCampaignId, request.adGroupName);
      return { adGroupId };
    }),

    listAdGroups: unary(logger, 'ListAdGroups', async (request, call) => {
      guard.account(call, PERMISSIONS.mediaPlanTagsCreate, request.accountId);
      const records = await adGroups.list(request.accountId, request.retailCampaignId);
      return { adGroups: records.map((r) => ({ adGroupId: r.adGroupId, adGroupName: r.adGroupName })) };
    }),
  };
}
