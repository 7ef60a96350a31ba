import { headers as natsHeaders, type JetStreamClient, type PubAck } from 'nats';
import { currentHopHeaders } from './nats.hop-headers';

export interface PublishOptions {
  /**
   * Becomes Nats-Msg-Id. Must identify the fact being published, not the attempt: a retry with the
   * same id inside the stream's duplicate window is dropped by JetStream, which is what makes
   * retries and outbox re-relays safe.
   */
  msgId: string;
  headers?: Readonly<Record<string, string>>;
}

/**
 * Publishes to JetStream and waits for the stream's ack; `ack.duplicate` tells a deduplicated retry.
 * The current request id and trace context travel as headers (given headers win), so whoever
 * consumes the message continues the same request.
 */
export async function publish(js: JetStreamClient, subject: string, data: Uint8Array, { msgId, headers }: PublishOptions): Promise<PubAck> {
  if (!msgId) throw new Error(`publish to ${subject}: msgId is required`);
  const all = { ...currentHopHeaders(), ...headers };
  let hdrs: ReturnType<typeof natsHeaders> | undefined;
  if (Object.keys(all).length > 0) {
    hdrs = natsHeaders();
    for (const [key, value] of Object.entries(all)) hdrs.set(key, value);
  }
  return js.publish(subject, data, { msgID: msgId, headers: hdrs });
}
