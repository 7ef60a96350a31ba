import { TAGGING_TRACKERS_ACCESS } from '@contracts/domain';
import { taggingTrackersV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import type { PeerOf } from '@platform/grpc';
import type { ChannelsPlansPeer } from '../peers/channels-plans.peer';
import type { TagVariableMapRecord } from './tag-variable-map.model';
import type { TagVariableMapService } from './tag-variable-map.service';

const toEntry = (record: TagVariableMapRecord): v1.TagVariableMap => ({
  idx: record.idx,
  adServerId: record.adServerId,
  dataSignal: record.dataSignal,
  macroName: record.macroName,
  adServerParamsJson: record.adServerParamsJson,
});

type Handlers = Pick<v1.TaggingTrackersServiceServer, 'listTagVariableMaps' | 'createTagVariableMap' | 'updateTagVariableMap'>;

export function tagVariableMapGrpc({
  logger,
  guard,
  channelsPlans,
  tagVariableMaps,
}: {
  logger: Logger;
  guard: CallGuard;
  channelsPlans: PeerOf<ChannelsPlansPeer>;
  tagVariableMaps: TagVariableMapService;
}): Handlers {
  return unaryHandlers(v1.TaggingTrackersServiceService, TAGGING_TRACKERS_ACCESS, logger, {
    listTagVariableMaps: async (request, call) => {
      guard.account(call, request.accountId);
      const entries = await tagVariableMaps.list(channelsPlans(call), request.accountId, request.campaignId);
      return { entries: entries.map(toEntry) };
    },

    createTagVariableMap: async (request, call) => {
      guard.account(call, request.accountId);
      const idx = await tagVariableMaps.create(channelsPlans(call), request.accountId, request.campaignId, {
        adServerId: request.adServerId,
        dataSignal: request.dataSignal,
        macroName: request.macroName,
        adServerParamsJson: request.adServerParamsJson,
      });
      return { idx };
    },

    updateTagVariableMap: async (request, call) => {
      guard.account(call, request.accountId);
      const idx = await tagVariableMaps.update(channelsPlans(call), request.accountId, request.campaignId, request.idx, {
        adServerId: request.adServerId,
        dataSignal: request.dataSignal,
        macroName: request.macroName,
        adServerParamsJson: request.adServerParamsJson,
      });
      return { idx };
    },
  });
}
