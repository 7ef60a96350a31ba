import type { Client, Metadata } from '@grpc/grpc-js';
import { callUnary, type PromiseClient } from '@platform/grpc';
import { BACKENDS, BackendClientOf, BackendKey } from './backend.registry';

export type TypedBackends = { [K in BackendKey]: PromiseClient<BackendClientOf<K>> };

/** What one request binds into its clients. */
interface CallBinding {
  client: Client;
  metadata: Metadata;
  deadlineMs: number;
  target: string;
}

type RawMethod = (this: Client, ...args: unknown[]) => unknown;

/**
 * Per backend, one prototype whose methods read the binding from `this`: binding a request's
 * clients is then one small object per backend used, not a closure per method.
 */
function methodPrototype(methodNames: string[]): object {
  const prototype: Record<string, (this: CallBinding, request: unknown) => Promise<unknown>> = {};
  for (const name of methodNames) {
    prototype[name] = function (this: CallBinding, request: unknown) {
      const method = (this.client as unknown as Record<string, RawMethod>)[name];
      return callUnary(this.client, method as never, request, { metadata: this.metadata, deadlineMs: this.deadlineMs, target: this.target, method: name });
    };
  }
  return prototype;
}

export interface BackendConnections {
  clients: { [K in BackendKey]: BackendClientOf<K> };
  /** The typed clients of one request: its principal's metadata and the gateway's deadline bound in. */
  bind(metadata: Metadata, deadlineMs: number): TypedBackends;
  close(): void;
}

export function connectBackends(addressOf: (key: BackendKey) => string, create: (key: BackendKey, address: string) => Client): BackendConnections {
  const keys = Object.keys(BACKENDS) as BackendKey[];
  const clients = Object.fromEntries(keys.map((key) => [key, create(key, addressOf(key))])) as BackendConnections['clients'];
  const prototypes = Object.fromEntries(keys.map((key) => [key, methodPrototype(Object.keys(BACKENDS[key].definition))])) as Record<BackendKey, object>;
  return {
    clients,
    bind(metadata, deadlineMs) {
      const bound = {} as Record<BackendKey, unknown>;
      for (const key of keys) {
        // Lazy: a request pays only for the backends its route calls.
        Object.defineProperty(bound, key, {
          enumerable: true,
          get: () => {
            const binding: CallBinding = { client: clients[key], metadata, deadlineMs, target: BACKENDS[key].label };
            const client = Object.assign(Object.create(prototypes[key]) as object, binding);
            Object.defineProperty(bound, key, { value: client, enumerable: true });
            return client;
          },
          configurable: true,
        });
      }
      return bound as TypedBackends;
    },
    close: () => keys.forEach((key) => clients[key].close()),
  };
}
