import { SERVICE_ACCESS, type MethodAccess } from '@contracts/domain';
import type { Principal } from '@platform/grpc';
import type { TypedBackends } from '../backends/typed-client';
import { ROUTE_TABLE } from './route-table';
import type { LocalServices, RouteContext, RouteSpec } from './route.types';

type ServiceKey = keyof typeof SERVICE_ACCESS;
interface BackendCall {
  service: ServiceKey;
  method: string;
}

/**
 * A value that stands for any backend answer: every property is itself, calling it gives itself,
 * it iterates as empty, reads as 0 or '' and is not a promise. A handler runs on through it, so
 * every call it makes on its way is seen, not only the first.
 */
function anything(): unknown {
  const target = function () {
    return undefined;
  };
  const proxy: unknown = new Proxy(target, {
    get: (_target, property) => {
      if (property === 'then') return undefined;
      if (property === Symbol.iterator) return () => [][Symbol.iterator]();
      if (property === Symbol.asyncIterator) return () => ({ next: async () => ({ done: true, value: undefined }) });
      if (property === Symbol.toPrimitive) return (hint: string) => (hint === 'number' ? 0 : '');
      if (property === 'toJSON') return () => ({});
      return proxy;
    },
    apply: () => proxy,
  });
  return proxy;
}

/** Backends that answer anything and record each method a handler calls. */
function recordingBackends(calls: BackendCall[]): TypedBackends {
  return new Proxy({} as TypedBackends, {
    get: (_target, service) =>
      new Proxy(
        {},
        {
          get: (_client, method) => async () => {
            calls.push({ service: service as ServiceKey, method: String(method) });
            return anything();
          },
        },
      ),
  });
}

const principal: Principal = { keyId: 'k', orgId: 'acme-retail', accountIds: [1001], permissions: ['*'], org: { isRetailer: true, dimensionWhitelist: [] } };
const local = {
  identity: anything(),
  uploads: { stage: async () => ({ stagingKey: 'staging/1001/x', fileName: 'a.png', path: '', sizeBytes: 1 }), discard: async () => undefined },
} as unknown as LocalServices;
const fakeRequest = { get: () => undefined, header: () => undefined, headers: {}, protocol: 'https', originalUrl: '/', query: {} };

/** The backend methods a route's handler calls, found by running it on its documented example. */
async function backendCallsOf(route: RouteSpec): Promise<BackendCall[]> {
  const calls: BackendCall[] = [];
  const ctx: RouteContext<unknown, unknown, unknown> = {
    params: { ...route.example?.params },
    query: { ...route.example?.query },
    body: route.example?.request ?? {},
    principal,
    req: fakeRequest as never,
    backends: recordingBackends(calls),
    local,
    links: () => ({}) as never,
  };
  // What the handler does with the fake answers after its calls does not matter here, failures included.
  await route.handle(ctx as never).catch(() => undefined);
  return calls;
}

const accessOf = ({ service, method }: BackendCall): MethodAccess | undefined =>
  (SERVICE_ACCESS[service] as Record<string, MethodAccess> | undefined)?.[method];

/**
 * One line per disagreement between a route and the methods it calls: each must be declared, none
 * may be a peer method (whose guard checks no permission, leaving the route's check the only one),
 * and each must declare the permission the route checks.
 */
async function permissionDrift(routes: RouteSpec[]): Promise<string[]> {
  const problems: string[] = [];
  for (const route of routes.filter((r) => r.auth !== 'admin')) {
    const calls = await backendCallsOf(route);
    if (calls.length === 0) problems.push(`${route.operationId}: calls no backend method`);
    for (const call of calls) {
      const access = accessOf(call);
      const name = `${call.service}.${call.method}`;
      if (access === undefined) problems.push(`${route.operationId}: calls ${name}, which declares no access`);
      else if (access === 'peer' || access === 'peer-reference') problems.push(`${route.operationId}: calls the peer method ${name}`);
      else if (access !== route.permission) problems.push(`${route.operationId}: checks ${route.permission}, but ${name} declares ${access}`);
    }
  }
  return problems;
}

describe('route and service permissions', () => {
  it('agree: every method a route calls declares the permission the route checks', async () => {
    expect(await permissionDrift(ROUTE_TABLE)).toEqual([]);
  });

  it('leave no method declared with a permission that no route calls', async () => {
    const called = new Set<string>();
    for (const route of ROUTE_TABLE) for (const call of await backendCallsOf(route)) called.add(`${call.service}.${call.method}`);
    const declared = Object.entries(SERVICE_ACCESS).flatMap(([service, methods]) =>
      Object.entries(methods as Record<string, MethodAccess>)
        .filter(([, access]) => access !== 'peer' && access !== 'peer-reference')
        .map(([method]) => `${service}.${method}`),
    );
    expect(declared.filter((method) => !called.has(method))).toEqual([]);
  });

  it('fail where a route and the method it calls disagree', async () => {
    const create = ROUTE_TABLE.find((route) => route.operationId === 'createRetailCampaign') as RouteSpec;
    const drifted: RouteSpec = { ...create, permission: 'RetailCampaigns_View' };
    expect(await permissionDrift([drifted])).toEqual([
      'createRetailCampaign: checks RetailCampaigns_View, but channelsPlans.createRetailCampaign declares RetailCampaigns_Edit',
    ]);
  });

  it('fail where a route calls a peer method or an undeclared one', async () => {
    const create = ROUTE_TABLE.find((route) => route.operationId === 'createRetailCampaign') as RouteSpec;
    const viaPeer: RouteSpec = {
      ...create,
      handle: async ({ backends }) => ({ body: await backends.channelsPlans.getCampaignFacts({ accountId: 1, retailCampaignId: 1 }) }),
    };
    const unknown: RouteSpec = {
      ...create,
      operationId: 'unknownCall',
      handle: async ({ backends }) => ({ body: await (backends.channelsPlans as never as Record<string, () => Promise<unknown>>).noSuchMethod() }),
    };
    expect(await permissionDrift([viaPeer, unknown])).toEqual([
      'createRetailCampaign: calls the peer method channelsPlans.getCampaignFacts',
      'unknownCall: calls channelsPlans.noSuchMethod, which declares no access',
    ]);
  });
});
