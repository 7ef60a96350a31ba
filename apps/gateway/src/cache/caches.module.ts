import { CACHED_VIEW_CHANGED_SUBJECT } from '@contracts/domain';
import type { Logger } from '@platform/logging';
import { closeNats, connectNats, naming, pingNats } from '@platform/nats';
import type { GatewayConfig } from '../gateway.config';
import { PrincipalCache } from '../identity/principal-cache';
import { PRINCIPAL_INVALIDATION_SUBJECT, principalInvalidationTopic } from '../identity/principal-invalidation';
import { cachedViewTopic } from './cached-view-topic';
import { InvalidationChannel } from './invalidation-channel';
import { ResponseCache } from './response-cache';

export interface GatewayCaches {
  principals: PrincipalCache;
  responses: ResponseCache;
  /** Live once this has started: both caches answer only while it vouches for them. */
  invalidations: InvalidationChannel;
  /** PRINCIPAL_INVALIDATION_SUBJECT with NATS_PREFIX applied, for the admin API's broadcasts. */
  principalSubject: string;
  /** Readiness check: NATS answers, so changes made here reach the other replicas. */
  natsReady(): Promise<boolean>;
  /** Unsubscribes and closes the NATS connection. */
  close(): Promise<void>;
}

type CacheConfig = Pick<
  GatewayConfig,
  'NATS_URL' | 'NATS_PREFIX' | 'PRINCIPAL_CACHE_TTL_MS' | 'PRINCIPAL_CACHE_MAX_ENTRIES' | 'RESPONSE_CACHE_TTL_MS' | 'RESPONSE_CACHE_MAX_BYTES'
>;

/** The gateway's in-memory caches and the NATS subscriptions that keep every replica's copies current. */
export async function startCaches(config: CacheConfig, logger: Logger): Promise<GatewayCaches> {
  const nc = await connectNats({ url: config.NATS_URL, name: 'gateway', logger });
  try {
    const names = naming(config.NATS_PREFIX);
    const principals = new PrincipalCache({ ttlMs: config.PRINCIPAL_CACHE_TTL_MS, maxEntries: config.PRINCIPAL_CACHE_MAX_ENTRIES });
    const responses = new ResponseCache({ ttlMs: config.RESPONSE_CACHE_TTL_MS, maxBytes: config.RESPONSE_CACHE_MAX_BYTES });
    const principalSubject = names.subject(PRINCIPAL_INVALIDATION_SUBJECT);
    const invalidations = await InvalidationChannel.start({
      nc,
      logger,
      topics: [
        principalInvalidationTopic(principalSubject, principals, logger),
        cachedViewTopic(names.subject(CACHED_VIEW_CHANGED_SUBJECT), responses, logger),
      ],
    });
    return {
      principals,
      responses,
      invalidations,
      principalSubject,
      natsReady: () => pingNats(nc).then(() => true),
      close: async () => {
        await invalidations.close();
        await closeNats(nc);
      },
    };
  } catch (error) {
    await closeNats(nc);
    throw error;
  }
}
