import { PERMISSIONS } from '@contracts/domain';
import { channelsPlansV1 as v1 } from '@contracts/proto';
import { unary } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import type { CallGuard } from '@platform/service';
import type { AdServerEntry } from './ad-server.model';
import type { AdServerService } from './ad-server.service';

const toAdServer = (entry: AdServerEntry): v1.AdServer => ({
  adServerId: entry.adServerId,
  adServerName: entry.adServerName,
  kind: entry.kind,
  logoUrl: entry.logoUrl,
});

export function adServerGrpc({
  logger,
  guard,
  adServers,
}: {
  logger: Logger;
  guard: CallGuard;
  adServers: AdServerService;
}): Pick<v1.ChannelsPlansServiceServer, 'listAdServers' | 'getAdServerCatalog'> {
  return {
    listAdServers: unary(logger, 'ListAdServers', async (_request, call) => {
      guard.any(call, PERMISSIONS.adServersView);
      const entries = await adServers.list();
      return { adServers: entries.map(toAdServer) };
    }),

    getAdServerCatalog: unary(logger, 'GetAdServerCatalog', async (_request, call) => {
      guard.peerReference(call);
      const entries = await adServers.list();
      return { adServers: entries.map(toAdServer) };
    }),
  };
}
