import type { Principal } from '@platform/grpc';
import { declareCall, inCall } from './unary-handlers';

/**
 * The caller a service spec's test bed acts for (`actingAs`): the writes its services make enter the
 * audit trail under this key, as a client's would under theirs.
 */
export const TEST_PRINCIPAL: Principal = {
  keyId: 'test-key',
  orgId: 'test-org',
  accountIds: [],
  permissions: ['*'],
  org: { isRetailer: false, dimensionWhitelist: [] },
};

/**
 * For specs that call services without gRPC: each method of each service runs as a guarded call of
 * `principal` (the method's name as the operation), so its changes enter the trail as they would
 * behind a handler.
 */
export function actingAs<T extends object>(services: T, principal: Principal): T {
  const wrapped = {} as Record<string, unknown>;
  for (const [name, service] of Object.entries(services)) {
    wrapped[name] = typeof service === 'object' && service !== null ? callingAs(service, principal) : service;
  }
  return wrapped as T;
}

function callingAs<S extends object>(service: S, principal: Principal): S {
  return new Proxy(service, {
    get(target, property, receiver) {
      const member: unknown = Reflect.get(target, property, receiver);
      if (typeof member !== 'function' || typeof property !== 'string') return member;
      return (...args: unknown[]) => {
        const declaration = declareCall({}, property, '*');
        declaration.checked = true;
        declaration.principal = principal;
        return inCall(declaration, () => (member as (...a: unknown[]) => unknown).apply(target, args));
      };
    },
  });
}
