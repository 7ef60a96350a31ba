import { headers as natsHeaders, type JetStreamClient, type PubAck } from 'nats';

export interface PublishOptions {
  /**
   * Becomes Nats-Msg-Id. Must identify the fact being published, not the attempt: a retry with the
   * same id inside the stream's duplicate window is dropped by JetStream, which is what makes
   * retries and outbox re-relays safe.
   */
  msgId: string;
  headers?: Readonly<Record<string, string>>;
}

/** Publishes to JetStream and waits for the stream's ack; `ack.duplicate` tells a deduplicated retry. */
export async function publish(js: JetStreamClient, subject: string, data: Uint8Array, { msgId, headers }: PublishOptions): Promise<PubAck> {
  if (!msgId) throw new Error(`publish to ${subject}: msgId is required`);
  let hdrs: ReturnType<typeof natsHeaders> | undefined;
  if (headers) {
    hdrs = natsHeaders();
    for (const [key, value] of Object.entries(headers)) hdrs.set(key, value);
  }
  return js.publish(subject, data, { msgID: msgId, headers: hdrs });
}
