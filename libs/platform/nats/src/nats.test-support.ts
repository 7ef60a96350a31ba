// Shared by this library's integration specs only; not exported.
import { randomBytes } from 'node:crypto';
import { createLogger } from '@platform/logging';
import { connect, type JetStreamClient, type JetStreamManager, type NatsConnection } from 'nats';
import { naming, type Naming } from './nats.naming';

export const testLogger = createLogger({ service: 'platform-nats-test', level: 'silent' });

export const NATS_TEST_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';

export interface NatsTestEnv {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  names: Naming;
  /** Deletes every stream this run created (they all carry its prefix), then closes. */
  teardown(): Promise<void>;
}

/** A connection plus a prefix no other run uses, so suites can run in parallel on one server. */
export async function openNatsTestEnv(): Promise<NatsTestEnv> {
  const nc = await connect({ servers: NATS_TEST_URL, name: 'platform-nats-test' });
  const jsm = await nc.jetstreamManager();
  const names = naming(`T${randomBytes(4).toString('hex')}_`);
  return {
    nc,
    js: nc.jetstream(),
    jsm,
    names,
    teardown: async () => {
      for await (const name of jsm.streams.names()) {
        if (name.startsWith(names.prefix)) await jsm.streams.delete(name);
      }
      await nc.drain();
    },
  };
}

export async function waitFor(condition: () => Promise<boolean> | boolean, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs}ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const bytes = (text: string) => new TextEncoder().encode(text);
export const text = (data: Uint8Array) => new TextDecoder().decode(data);
