import { channelsPlansV1 } from '@contracts/proto';
import { addService, createGrpcServer } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import { openOwnSchema } from '@platform/mysql';
import { closeNats, connectNats, enqueueOutbox, ensureStream, naming, outboxMigration, pingNats, startOutboxRelay } from '@platform/nats';
import { createSecretBox, resolveKey } from '@platform/secrets';
import { AdServerRepository } from './ad-servers/ad-server.repository';
import { ChannelsPlansConfig } from './channels-plans.config';
import { channelsPlansGrpc } from './grpc/channels-plans.grpc';
import { DomainEventRecorder } from './media-channels/media-channel.events';
import { MediaChannelRepository } from './media-channels/media-channel.repository';
import { MediaChannelService } from './media-channels/media-channel.service';
import { CHANNELS_PLANS_MIGRATIONS } from './migrations';
import { RetailCampaignService } from './retail-campaigns/retail-campaign.service';

export const CHANNELS_PLANS_EVENTS_STREAM = { name: 'CHANNELS_PLANS_EVENTS', subjects: ['channels-plans.>'], maxAgeMs: 7 * 24 * 3600_000 };

export interface ChannelsPlansModule {
  grpcPort: number;
  ready(): Promise<boolean>;
  /** Stops taking calls and waits for in-flight ones. */
  drain(): Promise<void>;
  /** Closes connections; call after drain. */
  close(): Promise<void>;
  setServing(serving: boolean): void;
}

/** Builds and starts the channels-plans process's parts: DB (migrated, seeded), outbox relay, gRPC server. */
export async function startChannelsPlans(config: ChannelsPlansConfig, logger: Logger): Promise<ChannelsPlansModule> {
  const warn = (message: string) => logger.warn(message);
  const principalKey = resolveKey({ configured: config.INTERNAL_AUTH_KEY, nodeEnv: config.NODE_ENV, variable: 'INTERNAL_AUTH_KEY', warn });
  const secrets = createSecretBox(resolveKey({ configured: config.SECRETS_ENCRYPTION_KEY, nodeEnv: config.NODE_ENV, variable: 'SECRETS_ENCRYPTION_KEY', warn }));
  const db = await openOwnSchema({ env: config, base: 'channels_plans', migrations: [outboxMigration, ...CHANNELS_PLANS_MIGRATIONS], logger });
  const adServers = new AdServerRepository(db.knex);
  await adServers.seed(config.PUBLIC_BASE_URL);

  const names = naming(config.NATS_PREFIX);
  const nc = await connectNats({ url: config.NATS_URL, name: 'channels-plans', logger });
  const jsm = await nc.jetstreamManager();
  await ensureStream(jsm, names.streamSpec(CHANNELS_PLANS_EVENTS_STREAM));
  const relay = startOutboxRelay({ knex: db.knex, js: nc.jetstream(), logger });

  const events: DomainEventRecorder = {
    record: (trx, event) =>
      enqueueOutbox(trx, { subject: names.subject(event.subject), msgId: event.msgId, payload: Buffer.from(JSON.stringify(event.payload)) }),
  };

  const grpc = createGrpcServer({ logger, serviceNames: ['channelsplans.v1.ChannelsPlansService'] });
  addService(
    grpc,
    channelsPlansV1.ChannelsPlansServiceService,
    channelsPlansGrpc({
      logger,
      principalKey,
      adServers,
      mediaChannels: new MediaChannelService({
        knex: db.knex,
        channels: new MediaChannelRepository(db.knex),
        adServers,
        secrets,
        events,
        onsiteApiBaseUrl: config.ONSITE_API_BASE_URL ?? `${config.PUBLIC_BASE_URL.replace(/\/$/, '')}/onsite/v1`,
      }),
      retailCampaigns: new RetailCampaignService(db.knex),
    }),
  );
  const grpcPort = await grpc.listen(config.GRPC_HOST, config.GRPC_PORT);
  grpc.setServing(true);

  return {
    grpcPort,
    setServing: grpc.setServing,
    ready: async () => {
      try {
        await Promise.all([db.ping(), pingNats(nc)]);
        return true;
      } catch {
        return false;
      }
    },
    drain: async () => {
      await grpc.drain(10_000);
      await relay.stop();
    },
    close: async () => {
      await closeNats(nc);
      await db.close();
    },
  };
}
