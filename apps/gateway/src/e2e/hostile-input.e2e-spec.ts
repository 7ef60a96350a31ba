import type { TObject } from '@sinclair/typebox';
import { ROUTE_TABLE } from '../routes/route-table';
import type { RouteSpec } from '../routes/route.types';
import { admin, ADMIN_TOKEN, E2eSystem, httpClient, startE2eSystem } from './e2e-system';

jest.setTimeout(900_000);

/**
 * Every operation's documented example, with one field at a time replaced by a hostile value, over
 * HTTP to the real processes: no answer may be a 5xx but a customer source's 502. Bad input is the
 * caller's fault and must be refused as such (400 naming the field, 413, 431) or handled; a 5xx means
 * something below the validation step choked on it.
 */

const DEEP_LEVELS = 10_000;
const LONG_STRING_BYTES = 70 * 1024;
/** Requests in flight at once: enough to keep the processes busy, modest enough for a shared 2-core machine. */
const CONCURRENCY = 6;

/** Each hostile value as raw JSON text, so a 10,000-deep array is written without recursion (or JSON.stringify). */
const BODY_VALUES: Record<string, string> = {
  'lone surrogate': '"a\\ud800b"',
  NUL: '"a\\u0000b"',
  'C0 control': '"a\\u0001b"',
  '70 KB string': JSON.stringify('x'.repeat(LONG_STRING_BYTES)),
  [`${DEEP_LEVELS}-deep arrays`]: '['.repeat(DEEP_LEVELS) + ']'.repeat(DEEP_LEVELS),
  number: '12345',
  'negative fraction': '-1.5',
  string: '"hostile"',
  object: '{"hostile":1}',
  array: '["hostile"]',
  null: 'null',
  boolean: 'true',
};

/** The same values as they can travel in a path segment or a query value (percent-encoded bytes). */
const TEXT_VALUES: Record<string, string> = {
  'lone surrogate': 'a%ED%A0%80b',
  NUL: 'a%00b',
  'C0 control': 'a%01b',
  '70 KB string': 'x'.repeat(LONG_STRING_BYTES),
  [`${DEEP_LEVELS}-deep arrays`]: '%5B'.repeat(DEEP_LEVELS) + '%5D'.repeat(DEEP_LEVELS),
  number: '12345',
  'negative fraction': '-1.5',
  string: 'hostile',
  object: encodeURIComponent('{"hostile":1}'),
  array: encodeURIComponent('["hostile"]'),
  null: 'null',
  boolean: 'true',
};

interface Probe {
  method: string;
  template: string;
  location: 'path' | 'query' | 'body';
  pointer: string;
  kind: string;
  url: string;
  body?: string;
  /** The API key, or the admin token for an admin route, so the probe reaches the route's validation. */
  credential: string;
}

type Json = null | boolean | number | string | Json[] | { [name: string]: Json };

const escapeToken = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every node of a JSON value (containers and leaves, the root included) as [pointer, path of keys]. */
function nodesOf(value: Json): [string, (string | number)[]][] {
  const nodes: [string, (string | number)[]][] = [];
  const pending: [Json, (string | number)[]][] = [[value, []]];
  while (pending.length > 0) {
    const [node, keys] = pending.pop() as [Json, (string | number)[]];
    nodes.push([keys.map((key) => `/${escapeToken(String(key))}`).join(''), keys]);
    if (Array.isArray(node)) node.forEach((child, i) => pending.push([child, [...keys, i]]));
    else if (node !== null && typeof node === 'object') for (const [name, child] of Object.entries(node)) pending.push([child, [...keys, name]]);
  }
  return nodes;
}

const MARKER = '__hostile_value__';

/** The body text with the node at `keys` replaced by the raw JSON text `raw`. */
function bodyWith(example: Json, keys: (string | number)[], raw: string): string {
  if (keys.length === 0) return raw;
  const copy = structuredClone(example) as Record<string | number, Json>;
  let parent = copy;
  for (const key of keys.slice(0, -1)) parent = parent[key] as Record<string | number, Json>;
  parent[keys[keys.length - 1]] = MARKER;
  return JSON.stringify(copy).replace(`"${MARKER}"`, () => raw);
}

function urlOf(route: RouteSpec, params: Record<string, string>, query: [string, string][]): string {
  const path = route.path.replace(/:([A-Za-z0-9_]+)/g, (_match, name: string) => params[name] ?? '1');
  return query.length === 0 ? path : `${path}?${query.map(([name, value]) => `${name}=${value}`).join('&')}`;
}

/** Runs `work` over `items` with at most `limit` in flight. */
async function inPool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

describe('hostile values in every field of every documented operation', () => {
  let system: E2eSystem;
  let key: string;
  let otherKey: string;
  /** Ids of real resources of the test's account, by the name a path parameter or body field gives them. */
  const ids: Record<string, number | string> = {};

  const http = () => httpClient(system.baseUrl);
  /** The distinct error and fatal lines the processes logged, to tell what a 5xx came from. */
  const errorLines = () => [
    ...new Set(
      [...system.processes, ...system.otherBackends].flatMap((proc) =>
        proc
          .output()
          .split('\n')
          .filter((line) => /"level":"(error|fatal)"/.test(line))
          .map((line) => `${proc.name}: ${line.replace(/"(time|pid|hostname|requestId|traceId)":[^,]*,/g, '').slice(0, 600)}`),
      ),
    ),
  ];
  const routeOf = (operationId: string) => ROUTE_TABLE.find((route) => route.operationId === operationId) as RouteSpec;

  /** The id a field of this name stands for in this route, when the test holds one. */
  function idFor(route: RouteSpec, name: string, example: unknown): number | string | undefined {
    let id: number | string | undefined = ids[name];
    if (name === 'campaignId') {
      // A dynamic campaign where the path says /campaigns/ or the id is the motion-design string; else a retail campaign.
      const dynamic = route.path.includes('/campaigns/:campaignId') || typeof example === 'string';
      id = dynamic ? ids.dynamicCampaignId : ids.retailCampaignId;
    }
    if (id === undefined) return undefined;
    return typeof example === 'string' ? String(id) : id;
  }

  /** The route's example with every id it names replaced by the test's own, so requests reach real resources. */
  function exampleOf(route: RouteSpec): { params: Record<string, string>; query: [string, string][]; body?: Json } {
    const example = route.example ?? {};
    const params: Record<string, string> = {};
    for (const name of Object.keys(route.params?.properties ?? {})) {
      const given = (example.params as Record<string, unknown> | undefined)?.[name];
      params[name] = encodeURIComponent(String(idFor(route, name, given) ?? given ?? '1'));
    }
    const query = Object.entries(example.query ?? {}).map(([name, value]) => [name, encodeURIComponent(String(value))] as [string, string]);
    if (!route.body || example.request === undefined) return { params, query };
    const body = structuredClone(example.request) as Json;
    for (const [, keys] of nodesOf(body)) {
      const name = keys[keys.length - 1];
      if (typeof name !== 'string') continue;
      let parent = body as Record<string | number, Json>;
      for (const k of keys.slice(0, -1)) parent = parent[k] as Record<string | number, Json>;
      const replaced = idFor(route, name, parent[name]);
      if (replaced !== undefined && (typeof parent[name] === 'number' || typeof parent[name] === 'string')) parent[name] = replaced;
    }
    return { params, query, body };
  }

  const send = async (method: string, url: string, body: string | undefined, apiKey = key) => {
    const response = await fetch(`${system.baseUrl}${url}`, {
      method: method.toUpperCase(),
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body,
    });
    return { status: response.status, text: await response.text() };
  };

  /** Sends a route's example as is (ids replaced) and answers its JSON body; used to create the resources the others name. */
  async function runExample(operationId: string, override?: (body: Json) => Json): Promise<Record<string, unknown>> {
    const route = routeOf(operationId);
    const { params, query, body } = exampleOf(route);
    const sent = body === undefined ? undefined : JSON.stringify(override ? override(body) : body);
    const answer = await send(route.method, urlOf(route, params, query), sent);
    if (answer.status >= 300) throw new Error(`${operationId} example answered ${answer.status}: ${answer.text}`);
    return answer.text ? (JSON.parse(answer.text) as Record<string, unknown>) : {};
  }

  beforeAll(async () => {
    system = await startE2eSystem('hostile', { env: { RATE_LIMIT_PER_MINUTE: '0' } });
    const a = admin(http());
    const orgId = await a.createOrg({ name: 'Hostile Retail', isRetailer: true, dimensionWhitelist: ['300x250', '728x90', '160x600'] });
    const accountId = await a.createAccount(orgId, 'Hostile account');
    key = (await a.createKey({ orgId, permissions: ['*'] })).apiKey;
    const otherOrgId = await a.createOrg({ name: 'Other Retail', isRetailer: true });
    await a.createAccount(otherOrgId, 'Other account');
    otherKey = (await a.createKey({ orgId: otherOrgId, permissions: ['*'] })).apiKey;
    Object.assign(ids, { orgId, accountId });

    // The resources the examples name, created through the examples themselves.
    const campaign = await runExample('createRetailCampaign');
    Object.assign(ids, { retailCampaignId: Number(campaign.retailCampaignId), retailCampaignIdx: Number(campaign.retailCampaignId) });
    ids.templateCampaignIdx = ids.retailCampaignIdx;
    ids.mediaChannelIdx = Number((await runExample('createMediaChannel')).idx);
    ids.mediaPlanId = Number((await runExample('createAutoMediaPlan')).mediaPlanId);
    const sourceId = Number((await runExample('createInlineAssetSource')).id);
    Object.assign(ids, { assetSourceId: sourceId, objId: sourceId, sourceAssetSourceId: sourceId, dataServiceId: sourceId });
    ids.templateIdx = Number((await runExample('createRetailTemplate')).templateIdx);
    const plan = await runExample('getMediaPlan');
    const placement = (plan.adServers as { placements: { placementId: string; siteIdx: number }[] }[])[0].placements[0];
    Object.assign(ids, { placementId: placement.placementId, siteIdx: placement.siteIdx });
    ids.idx = Number((await runExample('createTagVariableMap')).idx);
    // The campaign example names columns of another source; this one maps the inline source's own.
    const dynamic = await runExample('createDynamicCampaign', (body) => ({
      ...(body as Record<string, Json>),
      assetMap: [{ assetId: 'heroImage', assetSourceId: sourceId, assetSourceColumn: 'image' }],
      decisionMap: [],
    }));
    ids.dynamicCampaignId = Number(dynamic.campaignId);
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('answers no 5xx to any of them', async () => {
    const probes: Probe[] = [];
    for (const route of ROUTE_TABLE) {
      const { params, query, body } = exampleOf(route);
      const base = { method: route.method.toUpperCase(), template: route.path, credential: route.auth === 'admin' ? ADMIN_TOKEN : key };
      const sentBody = body === undefined ? undefined : JSON.stringify(body);
      for (const [kind, text] of Object.entries(TEXT_VALUES)) {
        for (const name of Object.keys(params)) {
          probes.push({ ...base, location: 'path', pointer: name, kind, url: urlOf(route, { ...params, [name]: text }, query), body: sentBody });
        }
        for (const name of Object.keys((route.query as TObject | undefined)?.properties ?? {})) {
          const others = query.filter(([given]) => given !== name);
          const hostile: [string, string][] =
            kind === 'array'
              ? [
                  [name, '1'],
                  [name, '2'],
                ]
              : [[name, text]];
          probes.push({ ...base, location: 'query', pointer: name, kind, url: urlOf(route, params, [...others, ...hostile]), body: sentBody });
        }
      }
      if (body === undefined) continue;
      for (const [pointer, keys] of nodesOf(body)) {
        for (const [kind, raw] of Object.entries(BODY_VALUES)) {
          probes.push({ ...base, location: 'body', pointer: pointer || '(the body)', kind, url: urlOf(route, params, query), body: bodyWith(body, keys, raw) });
        }
      }
    }

    const failures: string[] = [];
    const started = Date.now();
    await inPool(probes, CONCURRENCY, async (probe) => {
      try {
        const answer = await send(probe.method, probe.url, probe.body, probe.credential);
        // 502 is the contract's answer when a customer's own source fails: the examples name feed and
        // bucket hosts (feeds.example.com) that do not resolve here. Every other 5xx is a failure of ours.
        if (answer.status >= 500 && answer.status !== 502) {
          failures.push(`${probe.method} ${probe.template} ${probe.location} ${probe.pointer} <- ${probe.kind}: ${answer.status} ${answer.text.slice(0, 300)}`);
        }
      } catch (error) {
        failures.push(`${probe.method} ${probe.template} ${probe.location} ${probe.pointer} <- ${probe.kind}: no answer (${String(error)})`);
      }
    });
    const seconds = (Date.now() - started) / 1000;
    console.log(`hostile input: ${probes.length} requests over ${ROUTE_TABLE.length} operations in ${seconds.toFixed(1)} s; ${failures.length} 5xx`);
    expect(probes.length).toBeGreaterThan(ROUTE_TABLE.length * 10);
    // One assertion listing every failure (method, path, where, which value) with what the processes logged as errors.
    expect({ answeredWith5xx: failures.length, failures: failures.sort(), errorsLogged: failures.length > 0 ? errorLines() : [] }).toEqual({
      answeredWith5xx: 0,
      failures: [],
      errorsLogged: [],
    });
  });

  it("answers 404 to another org's key on every operation of a tenant, naming this org's resources", async () => {
    const leaks: string[] = [];
    for (const route of ROUTE_TABLE.filter((r) => r.scope !== 'none')) {
      const { params, query, body } = exampleOf(route);
      const answer = await send(route.method, urlOf(route, params, query), body === undefined ? undefined : JSON.stringify(body), otherKey);
      if (answer.status !== 404) leaks.push(`${route.method.toUpperCase()} ${route.path}: ${answer.status} ${answer.text.slice(0, 200)}`);
    }
    expect(leaks).toEqual([]);
  });
});
