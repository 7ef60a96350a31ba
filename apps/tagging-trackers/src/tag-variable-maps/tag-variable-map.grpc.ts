import { PERMISSIONS } from '@contracts/domain';
import { taggingTrackersV1 as v1 } from '@contracts/proto';
import { unary } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import type { CallGuard } from '@platform/service';
import type { PeerOf } from '../peers/peer-of';
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
  peerOf,
  tagVariableMaps,
}: {
  logger: Logger;
  guard: CallGuard;
  peerOf: PeerOf;
  tagVariableMaps: TagVariableMapService;
}): Handlers {
  return {
    listTagVariableMaps: unary(logger, 'ListTagVariableMaps', async (request, call) => {
      guard.account(call, PERMISSIONS.tagsView, request.accountId);
      const entries = await tagVariableMaps.list(peerOf(call), request.accountId, request.campaignId);
      return { entries: entries.map(toEntry) };
    }),

    createTagVariableMap: unary(logger, 'CreateTagVariableMap', async (request, call) => {
      guard.account(call, PERMISSIONS.tagsEdit, request.accountId);
      const idx = await tagVariableMaps.create(peerOf(call), request.accountId, request.campaignId, {
        adServerId: request.adServerId,
        dataSignal: request.dataSignal,
        macroName: request.macroName,
        adServerParamsJson: request.adServerParamsJson,
      });
      return { idx };
    }),

    updateTagVariableMap: unary(logger, 'UpdateTagVariableMap', async (request, call) => {
      guard.account(call, PERMISSIONS.tagsEdit, request.accountId);
      const idx = await tagVariableMaps.update(peerOf(call), request.accountId, request.campaignId, request.idx, {
        adServerId: request.adServerId,
        dataSignal: request.dataSignal,
        macroName: request.macroName,
        adServerParamsJson: request.adServerParamsJson,
      });
      return { idx };
    }),
  };
}
