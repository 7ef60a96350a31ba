import { SERVICE_ENDPOINTS } from '@contracts/proto';

/**
 * Every backend the gateway routes to: every service of the shared endpoint catalog. The address
 * variable, the client, its readiness check and the typed client routes receive
 * (ctx.backends.<key>) all follow from an entry there.
 */
export const BACKENDS = SERVICE_ENDPOINTS;

export type BackendKey = keyof typeof BACKENDS;
export type BackendClientOf<K extends BackendKey> = InstanceType<(typeof BACKENDS)[K]['Client']>;

/** Config fields of the backends' addresses, derived from the registry so none is forgotten. */
export function backendAddressFields<T>(field: (defaultAddress: string) => T): Record<string, T> {
  return Object.fromEntries(Object.values(BACKENDS).map((b) => [b.addressVariable, field(b.defaultAddress)]));
}
