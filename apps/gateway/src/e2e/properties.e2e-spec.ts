import fc from 'fast-check';
import { documentOperations } from '../openapi/openapi-coverage';
import { admin, ADMIN_TOKEN, E2eSystem, Http, HttpResult, httpClient, startE2eSystem } from './e2e-system';

/**
 * Property-based sweep of every operation the running gateway documents at /openapi.json: requests
 * mixing valid values (derived from each schema, the document's examples and the seeded tenant)
 * with hostile shapes. A route added to the table is swept without anyone writing a case for it.
 *
 * Properties: never a 5xx but a documented 502 (a customer's source that failed); every 4xx is
 * problem+json with a stable UPPER_SNAKE code and a status the document lists for the operation; every
 * 400 names the offending field; a refused POST to a collection stores nothing (its list total moves
 * only by the 2xx answers).
 */

const SEED = 20261123;
const RUNS = 30;
jest.setTimeout(240_000);

type JsonObject = Record<string, unknown>;
type Schema = JsonObject;

interface Operation {
  key: string;
  operationId: string;
  method: string;
  path: string;
  operation: JsonObject;
  admin: boolean;
}

interface GeneratedRequest {
  path: string;
  headers: Record<string, string>;
  body?: { text: string; contentType: string };
  /** Why the request looks as it does, for the counterexample fast-check prints. */
  notes: string[];
}

// ---- Hostile shapes ----

/** Path and query spellings a number parser or a router might misread; already percent-encoded. */
const HOSTILE_PARAMETERS = [
  '1e99',
  '99999999999999999999',
  '-1',
  '0',
  '-0',
  '2147483648',
  '9007199254740993',
  '1e3',
  '0x10',
  '1.0',
  '+7',
  '07',
  '%207',
  '%20',
  'abc',
  'null',
  '%FF',
  '%ED%A0%80',
  '%00',
  '%0A',
  '%E2%80%8B',
  '%25',
  '..',
  'a'.repeat(300),
  '%F0%9F%98%80',
];

/** JSON tokens (as text) a field may be replaced with: range, spelling, type and encoding trouble. */
const HOSTILE_TOKENS = [
  '1e99',
  '99999999999999999999',
  '-1',
  '2147483648',
  '9007199254740993',
  '1.5',
  '-0',
  'null',
  'true',
  '[]',
  '{}',
  '""',
  '"\\ud800"',
  '"a\\udc00b"',
  '"a\\u0000b"',
  '"\\u001f\\u007f"',
  `"${'x'.repeat(5000)}"`,
  '[' + '1,'.repeat(2000) + '1]',
  '{"__proto__":{"polluted":true}}',
];

/** Bodies that are not what any schema describes, or not JSON at all. */
const deep = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const HOSTILE_BODIES = [
  deep(5000),
  '['.repeat(5000) + ']'.repeat(5000),
  `{"name":"${'m'.repeat(1 << 20)}"}`,
  '{',
  '{"a":1,}',
  '{"a":"raw\u0001control"}',
  '{"a":"\\ud800"}',
  'null',
  '[]',
  '"text"',
  '42',
  '{"__proto__":{"polluted":true}}',
  '{"a":1,"a":2}',
  '\ufeff{}',
  '',
];

// ---- Valid values derived from a schema ----

function exampleOf(holder: JsonObject | undefined): unknown {
  const examples = holder?.examples as Record<string, { value?: unknown }> | undefined;
  return examples ? Object.values(examples)[0]?.value : undefined;
}

/** An arbitrary of values the schema accepts (or close to it: services add rules schemas cannot say). */
function fromSchema(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as Schema[]).map((s) => fromSchema(s, depth)));
  switch (schema.type) {
    case 'integer':
      return fc.integer({ min: Math.max(Number(schema.minimum ?? -(2 ** 31)), -(2 ** 31)), max: Math.min(Number(schema.maximum ?? 2 ** 31 - 1), 2 ** 31 - 1) });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'string': {
      const minLength = Number(schema.minLength ?? 0);
      const maxLength = Math.min(Number(schema.maxLength ?? 40), 40);
      if (typeof schema.pattern === 'string')
        return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= minLength && s.length <= Number(schema.maxLength ?? Infinity));
      return fc.string({ minLength, maxLength: Math.max(minLength, maxLength) });
    }
    case 'array': {
      const items = (schema.items ?? {}) as Schema;
      return fc.array(fromSchema(items, depth + 1), { minLength: Number(schema.minItems ?? 0), maxLength: Math.min(Number(schema.maxItems ?? 3), 3) });
    }
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      if (Object.keys(properties).length === 0)
        return depth > 2 ? fc.constant({}) : fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 });
      const required = new Set((schema.required ?? []) as string[]);
      const entries = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, fromSchema(property, depth + 1)]));
      return fc.record(entries, { requiredKeys: [...required] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Splices a raw JSON token into a serialized object at a field, so tokens JSON.stringify cannot write survive. */
function withRawField(value: JsonObject, field: string, token: string): string {
  const marker = `__raw_${field}__`;
  return JSON.stringify({ ...value, [field]: marker }).replace(JSON.stringify(marker), token);
}

// ---- The sweep ----

describe('gateway properties, swept from its own OpenAPI document', () => {
  let system: E2eSystem;
  let http: Http;
  let document: JsonObject;
  let operations: Operation[];
  let apiKey: string;
  const seeded: Record<string, string | number> = {};
  /** 2xx answers per operation, to tell stored requests from refused ones. */
  const succeeded = new Map<string, number>();
  const totals: Record<string, number> = {};

  const channelsPath = () => `/v2/org/${seeded.orgId}/retail-media-channels`;
  const campaignsPath = () => `/v2/accounts/${seeded.accountId}/retail-campaigns`;
  const totalAt = async (path: string) => {
    const result = await http<{ total: number }>('GET', path, { key: apiKey });
    if (result.status !== 200) throw new Error(`GET ${path}: ${result.status} ${result.text}`);
    return result.body.total;
  };

  beforeAll(async () => {
    system = await startE2eSystem('props');
    http = httpClient(system.baseUrl);
    const a = admin(http);
    seeded.orgId = await a.createOrg({ name: 'Property Retail', isRetailer: true, dimensionWhitelist: ['300x250'] });
    seeded.accountId = await a.createAccount(String(seeded.orgId), 'Property US');
    apiKey = (await a.createKey({ orgId: String(seeded.orgId), permissions: ['*'] })).apiKey;
    const channel = await http<{ idx: number }>('POST', channelsPath(), {
      key: apiKey,
      json: { name: 'Seeded channel', adServerId: 'gam', type: 'Off-site', activationConfiguration: { tagGeneration: true, creativeGeneration: false } },
    });
    const campaign = await http<{ retailCampaignId: number }>('POST', campaignsPath(), { key: apiKey, json: { campaignName: 'Seeded campaign' } });
    if (channel.status !== 201 || campaign.status !== 201) throw new Error(`seeding failed: ${channel.text} ${campaign.text}`);
    seeded.mediaChannelIdx = channel.body.idx;
    seeded.retailCampaignIdx = campaign.body.retailCampaignId;
    seeded.templateCampaignIdx = campaign.body.retailCampaignId;
    seeded.adServerId = 'gam';
    totals.channels = await totalAt(channelsPath());
    totals.campaigns = await totalAt(campaignsPath());

    const served = await http<JsonObject>('GET', '/openapi.json');
    document = served.body;
    operations = [...documentOperations(document).entries()].map(([key, { path, method, operation }]) => ({
      key,
      operationId: String(operation.operationId),
      method,
      path,
      operation,
      admin: JSON.stringify(operation.security) === JSON.stringify([{ adminToken: [] }]),
    }));
  });

  afterAll(async () => {
    expect(await system?.stop()).toEqual([0, 0]);
  });

  function requestArbitrary(op: Operation): fc.Arbitrary<GeneratedRequest> {
    const parameters = (op.operation.parameters ?? []) as JsonObject[];
    const pathParameters = parameters.filter((p) => p.in === 'path');
    const queryParameters = parameters.filter((p) => p.in === 'query');
    const credential = op.admin ? ADMIN_TOKEN : apiKey;

    // Path: the seeded tenant and resources most of the time, so requests reach validation and the services.
    const pathValue = (parameter: JsonObject): fc.Arbitrary<[string, string]> => {
      const name = String(parameter.name);
      const valid: fc.Arbitrary<string>[] = [fromSchema(parameter.schema as Schema).map((v) => encodeURIComponent(String(v)))];
      const example = exampleOf(parameter);
      if (example !== undefined) valid.push(fc.constant(encodeURIComponent(String(example))));
      const hostile = fc.constantFrom(...HOSTILE_PARAMETERS);
      const choices: fc.WeightedArbitrary<string>[] = [
        { arbitrary: fc.oneof(...valid), weight: 2 },
        { arbitrary: hostile, weight: 3 },
      ];
      if (seeded[name] !== undefined) choices.push({ arbitrary: fc.constant(encodeURIComponent(String(seeded[name]))), weight: 10 });
      return fc.oneof(...choices).map((value) => [name, value]);
    };

    const queryPart = (parameter: JsonObject): fc.Arbitrary<string[]> => {
      const name = String(parameter.name);
      return fc.oneof(
        { arbitrary: fc.constant<string[]>([]), weight: 3 },
        { arbitrary: fromSchema(parameter.schema as Schema).map((v) => [`${name}=${encodeURIComponent(String(v))}`]), weight: 3 },
        { arbitrary: fc.constantFrom(...HOSTILE_PARAMETERS).map((v) => [`${name}=${v}`]), weight: 3 },
        { arbitrary: fc.tuple(fc.nat(100), fc.nat(100)).map(([x, y]) => [`${name}=${x}`, `${name}=${y}`]), weight: 1 },
      );
    };
    const extraQuery: fc.Arbitrary<string[]> = fc.oneof(
      { arbitrary: fc.constant<string[]>([]), weight: 6 },
      { arbitrary: fc.constantFrom<string[]>(['unknown=1'], ['offset[x]=1'], ['%'], ['a=%FF'], ['=1'], [`q=${'z'.repeat(4000)}`]), weight: 1 },
    );

    const headers = fc.record({
      auth: fc.oneof(
        { arbitrary: fc.constant<Record<string, string>>({ authorization: `Bearer ${credential}` }), weight: 12 },
        { arbitrary: fc.constant<Record<string, string>>(op.admin ? { authorization: `Bearer ${ADMIN_TOKEN}` } : { 'x-api-key': apiKey }), weight: 2 },
        {
          arbitrary: fc.constantFrom<Record<string, string>>(
            {},
            { authorization: 'Bearer' },
            { authorization: 'Basic Zm9vOmJhcg==' },
            { authorization: `Bearer ${credential}x` },
            { 'x-api-key': 'rmk_short_key' },
            { authorization: `Bearer ${'k'.repeat(4000)}` },
          ),
          weight: 2,
        },
      ),
      extra: fc.constantFrom<Record<string, string>>(
        {},
        {},
        { 'x-request-id': 'a'.repeat(500) },
        { 'x-request-id': '../../etc/passwd' },
        { accept: 'text/html' },
        { 'x-forwarded-for': '1.2.3.4, not-an-ip' },
        { 'content-encoding': 'gzip' },
        { 'if-none-match': '*' },
      ),
    });

    const requestBody = ((op.operation.requestBody as JsonObject | undefined)?.content as Record<string, JsonObject> | undefined)?.['application/json'];
    const body: fc.Arbitrary<{ text: string; contentType: string; note: string } | undefined> = requestBody
      ? bodyArbitrary(requestBody)
      : fc.constant(undefined);

    return fc
      .record({ path: fc.tuple(...pathParameters.map(pathValue)), query: fc.tuple(...queryParameters.map(queryPart), extraQuery), headers, body })
      .map(({ path, query, headers: { auth, extra }, body: generatedBody }) => {
        let url = op.path;
        for (const [name, value] of path) url = url.replace(`{${name}}`, value);
        const queryString = query.flat().join('&');
        if (queryString) url += `?${queryString}`;
        const notes = generatedBody ? [generatedBody.note] : [];
        return {
          path: url,
          headers: { ...extra, ...auth },
          body: generatedBody && { text: generatedBody.text, contentType: generatedBody.contentType },
          notes,
        };
      });
  }

  function bodyArbitrary(content: JsonObject): fc.Arbitrary<{ text: string; contentType: string; note: string }> {
    const schema = content.schema as Schema;
    const example = exampleOf(content);
    const valid = example === undefined ? fromSchema(schema) : fc.oneof(fc.constant(example), fromSchema(schema));
    const fields = Object.keys((schema.properties ?? {}) as object);
    const asObject = valid.map((v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {}));
    const field = fields.length > 0 ? fc.constantFrom(...fields) : fc.constant('a');

    const shapes = fc.oneof(
      { arbitrary: valid.map((v) => ({ text: JSON.stringify(v), note: 'valid from schema' })), weight: 3 },
      {
        arbitrary: fc.tuple(asObject, fc.string({ minLength: 1, maxLength: 12 })).map(([v, name]) => ({
          text: JSON.stringify({ ...v, [`${name}_unknown`]: 1 }),
          note: 'unknown field',
        })),
        weight: 1,
      },
      {
        arbitrary: fc.tuple(asObject, field).map(([v, name]) => {
          const copy = { ...v };
          delete copy[name];
          return { text: JSON.stringify(copy), note: `without ${name}` };
        }),
        weight: 1,
      },
      {
        arbitrary: fc.tuple(asObject, field, fc.constantFrom(...HOSTILE_TOKENS)).map(([v, name, token]) => ({
          text: withRawField(v, name, token),
          note: `${name} as ${token.slice(0, 40)}`,
        })),
        weight: 4,
      },
      {
        arbitrary: fc.tuple(asObject, field, fc.constantFrom(deep(5000), deep(17), '['.repeat(3000) + ']'.repeat(3000))).map(([v, name, token]) => ({
          text: withRawField(v, name, token),
          note: `${name} nested ${token.length} chars deep`,
        })),
        weight: 1,
      },
      { arbitrary: fc.constantFrom(...HOSTILE_BODIES).map((text) => ({ text, note: `hostile body ${text.slice(0, 40)}` })), weight: 2 },
    );
    const contentType = fc.oneof(
      { arbitrary: fc.constant('application/json'), weight: 10 },
      {
        arbitrary: fc.constantFrom('text/plain', 'application/json; charset=latin1', 'application/x-www-form-urlencoded', 'application/json-patch+json'),
        weight: 1,
      },
    );
    return fc.tuple(shapes, contentType).map(([shape, type]) => ({ ...shape, contentType: type }));
  }

  /** What every answer must satisfy, whatever was sent. */
  function answerViolations(op: Operation, result: HttpResult<object>): string[] {
    const violations: string[] = [];
    const problem = result.body as JsonObject | undefined;
    const documented = Object.keys((op.operation.responses ?? {}) as object);
    // 502 is the contract's answer when a customer's own source fails (a documented feed URL whose host
    // does not resolve here, say); every other 5xx is a failure of ours.
    const customerSourceFailed = result.status === 502 && documented.includes('502');
    if (result.status >= 500 && !customerSourceFailed) violations.push(`answered ${result.status}`);
    if (result.status >= 400) {
      if (!/^application\/problem\+json/.test(result.headers.get('content-type') ?? ''))
        violations.push(`${result.status} is ${result.headers.get('content-type')}`);
      if (typeof problem?.code !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(problem.code)) violations.push(`${result.status} without a stable code`);
      if (problem?.status !== result.status) violations.push(`problem status ${String(problem?.status)} on a ${result.status}`);
      if (result.text.includes('    at ')) violations.push('a stack trace in the answer');
    }
    if (result.status === 400) {
      const errors = problem?.errors as JsonObject[] | undefined;
      const named =
        Array.isArray(errors) &&
        errors.length > 0 &&
        errors.every((e) => ['pointer', 'parameter', 'header'].some((k) => typeof e[k] === 'string') && typeof e.code === 'string');
      if (!named) violations.push(`400 ${String(problem?.code)} names no field`);
    }
    // A path no route matches (a hostile segment that breaks the template) is answered as an unknown route.
    if (!documented.includes(String(result.status)) && !documented.includes('default') && problem?.code !== 'ROUTE_NOT_FOUND')
      violations.push(`status ${result.status} is not documented for ${op.key}`);
    return violations;
  }

  /** The collection a POST adds to, when the document lists it with a total: a refused POST must not change it. */
  const collectionOf = (op: Operation) =>
    op.method === 'post' && op.path === '/v2/org/{orgId}/retail-media-channels'
      ? channelsPath()
      : op.method === 'post' && op.path === '/v2/accounts/{accountId}/retail-campaigns'
        ? campaignsPath()
        : undefined;

  it('finds operations to sweep in the served document', () => {
    expect(operations.length).toBeGreaterThanOrEqual(16);
    expect(operations.filter((op) => op.admin).length).toBeGreaterThanOrEqual(4);
  });

  // Jest fixes its tests before the document is served, so one test walks every operation and reports each failing one.
  it('sweeps every documented operation', async () => {
    const failures: string[] = [];
    for (const op of operations) {
      const collection = collectionOf(op);
      let violation: string | undefined;
      try {
        await fc.assert(
          fc.asyncProperty(requestArbitrary(op), async (request) => {
            const before = collection ? await totalAt(collection) : 0;
            const result = await http(op.method.toUpperCase(), request.path, {
              headers: request.headers,
              ...(request.body ? { raw: request.body.text, contentType: request.body.contentType } : {}),
            });
            if (result.status >= 200 && result.status < 300) succeeded.set(op.operationId, (succeeded.get(op.operationId) ?? 0) + 1);
            const violations = answerViolations(op, result);
            if (collection) {
              const after = await totalAt(collection);
              const stored = result.status >= 200 && result.status < 300 ? 1 : 0;
              if (after - before !== stored) violations.push(`the collection total moved by ${after - before} on a ${result.status}`);
            }
            if (violations.length > 0) {
              violation = `${op.key}: ${request.path.slice(0, 200)} [${request.notes.join('; ')}] -> ${result.status}: ${violations.join('; ')}; ${result.text.slice(0, 300)}`;
              return false;
            }
            return true;
          }),
          { seed: SEED, numRuns: RUNS, endOnFailure: true },
        );
      } catch (error) {
        const cause = (error as Error & { cause?: unknown }).cause;
        failures.push(violation ?? `${op.key}: ${String(cause instanceof Error ? cause.message : (error as Error).message).slice(0, 1000)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('stores nothing from a refused request: totals move only by the 2xx answers', async () => {
    const count = (operationId: string) => succeeded.get(operationId) ?? 0;
    expect(await totalAt(channelsPath())).toBe(totals.channels + count('createMediaChannel') - count('deleteMediaChannel'));
    expect(await totalAt(campaignsPath())).toBe(totals.campaigns + count('createRetailCampaign'));
  });
});
