import { CONTENT_CREATIVE_ACCESS } from '@contracts/domain';
import { contentCreativeV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import type { DataSignalRecord } from './data-signal.model';
import type { DataSignalService } from './data-signal.service';

const toDataSignal = (record: DataSignalRecord): v1.DataSignal => ({
  dataSignalId: record.dataSignalId,
  dataSignalName: record.dataSignalName,
  dataSignalProperties: record.properties.map((p) => ({
    propertyId: p.propertyId,
    propertyName: p.propertyName,
    operators: p.operators,
    valueType: p.valueType,
  })),
});

export function dataSignalGrpc({
  logger,
  guard,
  dataSignals,
}: {
  logger: Logger;
  guard: CallGuard;
  dataSignals: DataSignalService;
}): Pick<v1.ContentCreativeServiceServer, 'listDataSignals'> {
  return unaryHandlers(v1.ContentCreativeServiceService, CONTENT_CREATIVE_ACCESS, logger, {
    listDataSignals: async (request, call) => {
      guard.account(call, request.accountId);
      const page = await dataSignals.list(request.page);
      return { dataSignals: page.items.map(toDataSignal), total: page.total };
    },
  });
}
