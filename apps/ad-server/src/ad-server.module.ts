import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@platform/logging';
import { closeNats, connectNats, naming, pingNats } from '@platform/nats';
import { createOutboundFetch, parseAllowlist } from '@platform/outbound-fetch';
import type { AdServerConfig } from './ad-server.config';
import { createConsentDecider } from './consent';
import { openDeliveryPublisher } from './events/delivery-publisher';
import type { ServeContext } from './http/serve-context';
import { serveRequests } from './http/serve-router';
import { ServeUrls } from './render/serve-urls';
import { SnapshotCache } from './snapshot/snapshot.cache';
import { expandCacheBusters, newCacheBuster } from './trackers';

export interface RunningAdServer {
  port: number;
  server: Server;
  snapshots: SnapshotCache;
  /** Stops taking requests and waits for those in flight. */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Connects to NATS, loads every serving snapshot, then listens. Nothing on the request path waits on
 * I/O but the event publishes of pixels and clicks.
 */
export async function startAdServer(config: AdServerConfig, logger: Logger): Promise<RunningAdServer> {
  const names = naming(config.NATS_PREFIX);
  const nats = await connectNats({ url: config.NATS_URL, name: 'ad-server', logger });
  const snapshots = new SnapshotCache(logger);
  try {
    await snapshots.start(nats, names);
    const events = await openDeliveryPublisher(nats, names);
    const fetchTracker = createOutboundFetch({
      allowlist: parseAllowlist(config.OUTBOUND_ALLOWLIST),
      timeoutMs: config.TRACKER_TIMEOUT_MS,
      maxBytes: 64 * 1024,
    });
    const ctx: ServeContext = {
      snapshots,
      urls: new ServeUrls(config.PUBLIC_BASE_URL.replace(/\/$/, '')),
      events,
      logger,
      consent: createConsentDecider({ vendorId: config.IAB_VENDOR_ID }),
      expandTracker: (url) => expandCacheBusters(url, newCacheBuster()),
      fireTracker: (url) => {
        // A third party's tracker never delays or fails the click it counts.
        fetchTracker.fetch(url).catch((error: unknown) => logger.debug({ err: error }, 'click tracker not reached'));
      },
    };
    const server = createServer(
      serveRequests(ctx, {
        ready: async () =>
          snapshots.isLoaded() &&
          (await pingNats(nats).then(
            () => true,
            () => false,
          )),
      }),
    );
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.PORT, config.HOST, resolve);
    });
    return {
      port: (server.address() as AddressInfo).port,
      server,
      snapshots,
      drain: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        }),
      close: async () => {
        snapshots.stop();
        await closeNats(nats);
      },
    };
  } catch (error) {
    snapshots.stop();
    await closeNats(nats).catch(() => undefined);
    throw error;
  }
}
