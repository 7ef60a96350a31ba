import { DELIVERY_STREAM, deliveryEventSubject, type DeliveryEvent } from '@contracts/domain';
import { ensureStream, publish, type Naming } from '@platform/nats';
import type { NatsConnection } from 'nats';

export interface DeliveryPublisher {
  /** Resolves once JetStream stored the event; its id is its Nats-Msg-Id, so a retried publish counts once. */
  publish(event: DeliveryEvent): Promise<void>;
}

export async function openDeliveryPublisher(nats: NatsConnection, names: Naming): Promise<DeliveryPublisher> {
  await ensureStream(await nats.jetstreamManager(), names.streamSpec(DELIVERY_STREAM));
  const js = nats.jetstream();
  return {
    async publish(event) {
      await publish(js, names.subject(deliveryEventSubject(event.type)), Buffer.from(JSON.stringify(event)), { msgId: event.id });
    },
  };
}
