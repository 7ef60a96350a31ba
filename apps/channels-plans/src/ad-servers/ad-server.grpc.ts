import { CHANNELS_PLANS_ACCESS } from '@contracts/domain';
import { channelsPlansV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
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
  return unaryHandlers(v1.ChannelsPlansServiceService, CHANNELS_PLANS_ACCESS, logger, {
    listAdServers: async (_request, call) => {
      guard.any(call);
      const entries = await adServers.list();
      return { adServers: entries.map(toAdServer) };
    },

    getAdServerCatalog: async (_request, call) => {
      guard.peerReference(call);
      const entries = await adServers.list();
      return { adServers: entries.map(toAdServer) };
    },
  });
}
