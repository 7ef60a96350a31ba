import type { NatsConnection } from 'nats';

/** True when the promise fulfils within ms; false when it rejects or is still pending then. */
export function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([
    promise.then(
      () => true,
      () => false,
    ),
    timeout,
  ]).finally(() => clearTimeout(timer));
}

export type BroadcastConnection = Pick<NatsConnection, 'publish' | 'flush'>;

/**
 * Publishes a core NATS message (no JetStream: it is a notice for whoever listens now, not a record)
 * and waits for a round trip. When that resolves true the server has routed the message to every
 * subscription it had, so a listener that completes a round trip of its own afterwards has seen it.
 * False when the publish failed or the server did not answer within timeoutMs.
 */
export async function broadcastConfirmed(nc: BroadcastConnection, subject: string, payload: unknown, timeoutMs: number): Promise<boolean> {
  try {
    nc.publish(subject, Buffer.from(JSON.stringify(payload)));
  } catch {
    return false;
  }
  return settlesWithin(nc.flush(), timeoutMs);
}
