import type { KV, KvOptions, NatsConnection } from 'nats';
import type { Naming } from './nats.naming';

/**
 * A JetStream key-value bucket under NATS_PREFIX (bucket names share the stream namespace: the bucket
 * `b` is the stream `KV_<prefix>b`). Opening creates it when missing with these options and binds to it
 * as it is otherwise, so a writer and its readers may open it in any order.
 */
export async function openKeyValue(nats: NatsConnection, names: Naming, bucket: string, options: Partial<KvOptions> = {}): Promise<KV> {
  return nats.jetstream().views.kv(names.stream(bucket), { history: 1, ...options });
}
