import { PERMISSIONS } from '@contracts/domain';
import { taggingTrackersV1 as v1 } from '@contracts/proto';
import { unary } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import type { CallGuard } from '@platform/service';
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
  return {
    listTagVariableMaps: unary(logger, 'ListTagVariableMaps', async (request, call) => {
      guard.account(call, PERMISSIONS.tagsView, request.accountId);
      const entries = await tagVariableMaps.list(channelsPlans(call), request.accountId, request.campaignId);
      return { entries: entries.map(toEntry) };
    }),

    createTagVariableMap: unary(logger, 'CreateTagVariableMap', async (request, call) => {
      guard.account(call, PERMISSIONS.tagsEdit, request.accountId);
      const idx = await tagVariableMaps.create(channelsPlans(call), request.accountId, request.campaignId, {
        adServerId: request.adServerId,
        dataSignal: request.dataSignal,
        macroName: request.macroName,
        adServerParamsJson: request.adServerParamsJson,
      });
      return { idx };
    }),

    updateTagVariableMap: unary(logger, 'UpdateTagVariableMap', async (request, call) => {
      guard.account(call, PERMISSIONS.tagsEdit, request.accountId);
      const idx = await tagVariableMaps.update(channelsPlans(call), request.accountId, request.campaignId, request.idx, {
        adServerId: request.adServerId,
        dataSignal: request.dataSignal,
        macroName: request.macroName,
        adServerParamsJson: request.adServerParamsJson,
      });
      return { idx };
    }),
  };
}
