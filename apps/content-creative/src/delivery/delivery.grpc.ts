import { CONTENT_CREATIVE_ACCESS } from '@contracts/domain';
import { contentCreativeV1 as v1 } from '@contracts/proto';
import type { PeerOf } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import type { ChannelsPlansPeer } from '../peers/channels-plans.peer';
import type { DeliveryCountsWithCtr } from './delivery.model';
import type { DeliveryService } from './delivery.service';

const toCounts = (counts: DeliveryCountsWithCtr): v1.DeliveryCounts => ({ ...counts });

export function deliveryGrpc({
  logger,
  guard,
  delivery,
  channelsPlans,
}: {
  logger: Logger;
  guard: CallGuard;
  delivery: DeliveryService;
  channelsPlans: PeerOf<ChannelsPlansPeer>;
}): Pick<v1.ContentCreativeServiceServer, 'getCampaignDelivery'> {
  return unaryHandlers(v1.ContentCreativeServiceService, CONTENT_CREATIVE_ACCESS, logger, {
    getCampaignDelivery: async (request, call) => {
      guard.account(call, request.accountId);
      const report = await delivery.report(
        {
          accountId: request.accountId,
          retailCampaignId: request.retailCampaignId,
          from: request.from,
          to: request.to,
          groupBy: request.groupBy,
          offset: request.offset,
          limit: request.limit,
        },
        channelsPlans(call),
      );
      return {
        from: report.from,
        to: report.to,
        groupBy: report.groupBy,
        rows: report.rows.map((row) => ({
          day: row.day,
          placementId: row.placementId,
          mediaPlanId: row.mediaPlanId,
          creative: row.creative,
          segment: row.segment,
          counts: toCounts(row.counts),
        })),
        totals: toCounts(report.totals),
        total: report.total,
      };
    },
  });
}
