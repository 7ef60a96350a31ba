import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { ApiClient, createApiClient, operations } from '@contracts/api';
import { startEmbeddedS3 } from '@platform/s3';
import { deletePrefixedStreams, dropPrefixedSchemas, freePort, RunningProcess, startProcess, uniquePrefix } from '@platform/testing';
import { BACKENDS } from '../backends/backend.registry';
import { ResponseConformance } from './response-conformance';

export const ADMIN_TOKEN = 'e2e-admin-token-0123456789';

export interface E2eSystem {
  baseUrl: string;
  /** The ad server's own address, when the system runs one (`adServer`); the public paths reach it through the gateway. */
  adServerUrl?: string;
  /** The gateway's /metrics. */
  metricsUrl: string;
  /** /metrics of each service (its METRICS_PORT) and worker (its health port), by app name. */
  metricsUrls: Record<string, string>;
  prefix: string;
  processes: RunningProcess[];
  /** The backends besides channels-plans, and the workers, stopped after the gateway; their output is readable like the others'. */
  otherBackends: RunningProcess[];
  /**
   * Stops every process (SIGTERM), last started first, and cleans up; resolves with the exit codes of
   * `processes`, and rejects if one of `otherBackends` exits with anything but 0.
   */
  stop(): Promise<(number | null)[]>;
  /** Runs SQL as root against a service's schema, for facts the API cannot set up yet. */
  sql(schema: string, statement: string, values?: unknown[]): Promise<void>;
  /** Reads rows as root from a service's schema, for state the API does not show (a claim held mid-request). */
  rows<Row = Record<string, unknown>>(schema: string, statement: string, values?: unknown[]): Promise<Row[]>;
  /** Starts another gateway on the same schemas and NATS prefix, as a second replica would run; resolves with its base URL. */
  startGatewayReplica(): Promise<string>;
  /**
   * Starts a gRPC service again on its own port (after a spec killed it); the new process is appended
   * to `otherBackends`. For specs that kill a service and watch the gateway find it again.
   */
  restartService(label: string): Promise<RunningProcess>;
  /** Starts a worker on the same schemas, NATS prefix, object store and backends (a replacement for one that died); it joins `otherBackends`. */
  startWorker(name: string): Promise<RunningProcess>;
}

export interface E2eOptions {
  /** Workers to run beside the services (e.g. `storage-worker`), each logging `<name> ready`. */
  workers?: string[];
  /** Extra environment for every process (e.g. the object store's endpoint). */
  env?: Record<string, string>;
  /** LOG_LEVEL of the services, workers and gateway; info by default. */
  logLevel?: string;
  /** The gRPC services to start (by label); every one whose app exists when absent. */
  services?: string[];
  /**
   * A MariaDB and a NATS of the spec's own (`startPrivateMariaDb`, `startPrivateNats` of
   * @platform/testing) instead of the machine's: every process uses them, and `stop()` leaves their
   * schemas and streams alone, since the spec removes those servers whole.
   */
  infrastructure?: { mysqlUrl: string; natsUrl: string };
  /**
   * Runs the ad server too. Every process then takes the gateway's address as PUBLIC_BASE_URL (tags point
   * there), and the gateway forwards /serve/ to the ad server, as the cluster's ingress does.
   */
  adServer?: boolean;
}

/**
 * E2E_SERVICES=channels-plans,templates,... limits the services started to those named (while one
 * of the others is being written and does not start); unset, every service present starts.
 */
const onlyServices = process.env.E2E_SERVICES?.split(',').map((name) => name.trim());

const repositoryRoot = resolve(__dirname, '../../../..');

/**
 * Starts the real processes on free ports with a schema prefix of their own: every gRPC service of the
 * gateway's registry whose app exists (so /readyz and every route find theirs), the workers asked for,
 * and the gateway.
 */
export async function startE2eSystem(tag: string, options: E2eOptions = {}): Promise<E2eSystem> {
  const prefix = uniquePrefix(tag);
  const [httpPort, metricsPort] = [await freePort(), await freePort()];
  // An object store of the system's own (storage-library and the workers need one) unless the spec brings its own.
  const s3Directory = options.env?.S3_ENDPOINT ? undefined : await mkdtemp(join(tmpdir(), `e2e-s3-${tag}-`));
  const s3 = s3Directory ? await startEmbeddedS3({ port: 0, directory: s3Directory }) : undefined;
  const wanted = options.services ?? onlyServices;
  const services = Object.values(BACKENDS).filter(
    (backend) => existsSync(resolve(repositoryRoot, `apps/${backend.label}/src/main.ts`)) && (!wanted || wanted.includes(backend.label)),
  );
  const mysqlUrl = options.infrastructure?.mysqlUrl ?? process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
  const ports = new Map<string, number>();
  for (const backend of Object.values(BACKENDS)) ports.set(backend.label, await freePort());
  const metricsPorts = new Map<string, number>();
  for (const name of [...services.map((backend) => backend.label), ...(options.workers ?? [])]) metricsPorts.set(name, await freePort());
  const logLevel = options.logLevel ?? 'info';
  const adServerPort = options.adServer ? await freePort() : undefined;
  const serving = adServerPort
    ? { PUBLIC_BASE_URL: `http://127.0.0.1:${httpPort}`, AD_SERVER_URL: `http://127.0.0.1:${adServerPort}`, IAB_VENDOR_ID: '755' }
    : {};
  const backendAddresses = Object.fromEntries(Object.values(BACKENDS).map((backend) => [backend.addressVariable, `127.0.0.1:${ports.get(backend.label)}`]));
  // Services reach their peers at the same addresses the gateway does.
  const common = {
    MYSQL_SCHEMA_PREFIX: prefix,
    NATS_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'test',
    ...backendAddresses,
    ...(s3 ? { S3_ENDPOINT: s3.endpoint } : {}),
    ...(options.infrastructure ? { MYSQL_URL: options.infrastructure.mysqlUrl, NATS_URL: options.infrastructure.natsUrl } : {}),
    ...serving,
    ...options.env,
  };
  const processes: RunningProcess[] = [];
  const otherBackends: RunningProcess[] = [];
  const startService = (label: string) =>
    startProcess({
      name: label,
      entry: `apps/${label}/src/main.ts`,
      env: { ...common, GRPC_PORT: String(ports.get(label)), METRICS_PORT: String(metricsPorts.get(label) ?? 0), LOG_LEVEL: logLevel },
      ready: new RegExp(`${label} ready`),
    });
  // A worker started later (a replacement) takes a free health port; the system's own take the ports listed in metricsUrls.
  const startWorkerProcess = async (name: string, healthPort?: number) =>
    startProcess({
      name,
      entry: `apps/${name}/src/main.ts`,
      env: { ...common, HEALTH_PORT: String(healthPort ?? (await freePort())), LOG_LEVEL: logLevel },
      ready: new RegExp(`${name} ready`),
    });
  const stop = async () => {
    // Gateway first, as a rollout would: it drains before its backend goes away.
    const codes: (number | null)[] = [];
    for (const proc of [...processes].reverse()) codes.push(await proc.stop());
    const otherCodes = await Promise.all(otherBackends.map(async (proc) => ({ name: proc.name, code: await proc.stop() })));
    if (!options.infrastructure) await Promise.all([dropPrefixedSchemas(prefix), deletePrefixedStreams(prefix)]);
    await s3?.close();
    if (s3Directory) await rm(s3Directory, { recursive: true, force: true });
    // Their exit codes are not in the result (specs compare it with the processes they reason about), so a bad exit fails here.
    const unclean = otherCodes.filter((exit) => exit.code !== 0);
    if (unclean.length > 0) throw new Error(`Backends did not exit cleanly: ${unclean.map((exit) => `${exit.name} (${String(exit.code)})`).join(', ')}`);
    return codes;
  };
  try {
    // channels-plans is in `processes` (specs reason about its exit code and output); the rest start side by side.
    const started = await Promise.allSettled([
      ...services.map((backend) => startService(backend.label)),
      ...(options.workers ?? []).map((name) => startWorkerProcess(name, metricsPorts.get(name))),
    ]);
    started.forEach((outcome, index) => {
      if (outcome.status === 'fulfilled') (index === 0 ? processes : otherBackends).push(outcome.value);
    });
    const failed = started.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    if (adServerPort) {
      otherBackends.push(
        await startProcess({
          name: 'ad-server',
          entry: 'apps/ad-server/src/main.ts',
          env: { ...common, PORT: String(adServerPort), HOST: '127.0.0.1', LOG_LEVEL: logLevel },
          ready: /ad-server ready/,
        }),
      );
    }
    processes.push(
      await startProcess({
        name: 'gateway',
        entry: 'apps/gateway/src/main.ts',
        env: {
          ...common,
          PORT: String(httpPort),
          METRICS_PORT: String(metricsPort),
          ADMIN_TOKEN,
          BODY_LIMIT_BYTES: '65536',
          LOG_LEVEL: logLevel,
        },
        ready: /gateway listening/,
      }),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    baseUrl: `http://127.0.0.1:${httpPort}`,
    ...(adServerPort ? { adServerUrl: `http://127.0.0.1:${adServerPort}` } : {}),
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    metricsUrls: Object.fromEntries([...metricsPorts].map(([name, port]) => [name, `http://127.0.0.1:${port}/metrics`])),
    prefix,
    processes,
    otherBackends,
    stop,
    startWorker: async (name) => {
      const worker = await startWorkerProcess(name);
      otherBackends.push(worker);
      return worker;
    },
    startGatewayReplica: async () => {
      const port = await freePort();
      processes.push(
        await startProcess({
          name: `gateway-${processes.length}`,
          entry: 'apps/gateway/src/main.ts',
          env: { ...common, PORT: String(port), ADMIN_TOKEN, LOG_LEVEL: 'info' },
          ready: /gateway listening/,
        }),
      );
      return `http://127.0.0.1:${port}`;
    },
    restartService: async (label) => {
      const restarted = await startService(label);
      otherBackends.push(restarted);
      return restarted;
    },
    sql: async (schema, statement, values = []) => {
      await rootQuery(mysqlUrl, `${prefix}${schema}`, statement, values);
    },
    rows: async <Row>(schema: string, statement: string, values: unknown[] = []) =>
      (await rootQuery(mysqlUrl, `${prefix}${schema}`, statement, values)) as Row[],
  };
}

async function rootQuery(uri: string, database: string, statement: string, values: unknown[]): Promise<unknown> {
  const connection = await createConnection({ uri, database });
  try {
    const [result] = await connection.query(statement, values);
    return result;
  } finally {
    await connection.end();
  }
}

/** Members of a problem+json answer, readable on any result so tests can assert failures. */
export interface ProblemFields {
  code?: string;
  errors?: Record<string, unknown>[];
  requiredPermission?: string;
}

export interface HttpResult<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T & ProblemFields;
  text: string;
}

/** One checker per gateway origin, built from the document that gateway serves. */
const conformanceByOrigin = new Map<string, Promise<ResponseConformance>>();

function conformanceFor(origin: string): Promise<ResponseConformance> {
  let checker = conformanceByOrigin.get(origin);
  if (!checker) {
    checker = fetch(`${origin}/openapi.json`).then(async (response) => {
      if (response.status !== 200) throw new Error(`GET ${origin}/openapi.json answered ${response.status}`);
      return new ResponseConformance((await response.json()) as Record<string, unknown>);
    });
    // A failed fetch is not cached: the next request tries again rather than failing forever.
    checker.catch(() => conformanceByOrigin.delete(origin));
    conformanceByOrigin.set(origin, checker);
  }
  return checker;
}

/** Checks one answer against the document its gateway serves, unless the URL is outside the API. */
async function checkConformance(method: string, url: string, response: Response, text: string): Promise<void> {
  if (ResponseConformance.isOutsideTheApi(url)) return;
  (await conformanceFor(new URL(url).origin)).check({ method, path: url, status: response.status, contentType: response.headers.get('content-type'), text });
}

function parseBody(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A thin HTTP client over fetch; every test speaks real HTTP to the gateway. Every answer to a
 * request inside the API is checked against the OpenAPI document the gateway serves (operation,
 * status, content type, body schema), so a test that passes also proves the document true.
 * Untyped on purpose: for malformed requests and followed links; typed calls go through `apiClient`.
 */
export function httpClient(baseUrl: string) {
  const request = async function request<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: { key?: string; headers?: Record<string, string>; json?: unknown; raw?: string; contentType?: string } = {},
  ): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let body: string | undefined;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] = 'application/json';
    } else if (options.raw !== undefined) {
      body = options.raw;
      headers['content-type'] = options.contentType ?? 'application/json';
    }
    const url = path.startsWith('http') ? path : `${baseUrl}${path}`;
    const response = await fetch(url, { method, headers, body });
    const text = await response.text();
    await checkConformance(method, url, response, text);
    return { status: response.status, headers: response.headers, body: parseBody(text) as T & ProblemFields, text };
  };
  // The origin travels with the helper so admin() and apiClient() reach the same gateway.
  return Object.assign(request, { baseUrl });
}

export type Http = ReturnType<typeof httpClient>;

/** Body text of each response the conforming fetch handed out, for HttpResult.text. */
const responseTexts = new WeakMap<Response, string>();

/** Statuses whose Response may not carry a body, even an empty one. */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * The fetch the typed client sends through: it reads the answer once, checks it against the served
 * document exactly as httpClient does, and hands openapi-fetch an unread copy to parse.
 */
export async function conformingFetch(request: Request): Promise<Response> {
  const response = await fetch(request);
  const text = await response.text();
  await checkConformance(request.method, request.url, response, text);
  const copy = new Response(NULL_BODY_STATUSES.has(response.status) ? null : text, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  responseTexts.set(copy, text);
  return copy;
}

/**
 * A client typed by the gateway's generated OpenAPI types, sending `credential` as the bearer token
 * (none when empty) and checking every answer against the served document.
 */
export function apiClient(http: Http, credential: { apiKey?: string; adminToken?: string } = {}): ApiClient {
  return createApiClient({ baseUrl: http.baseUrl, apiKey: credential.apiKey || undefined, adminToken: credential.adminToken, fetch: conformingFetch });
}

/**
 * A typed call's outcome as an HttpResult, so expectProblem and status checks read it as they read
 * httpClient's: the body is the typed data on success and the problem otherwise.
 */
export async function exchange<D>(call: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<HttpResult<NonNullable<D>>> {
  const { data, error, response } = await call;
  return {
    status: response.status,
    headers: response.headers,
    body: (data ?? error) as NonNullable<D> & ProblemFields,
    text: responseTexts.get(response) ?? '',
  };
}

/** The JSON request body of a documented operation, as generated. */
export type JsonBody<Operation extends keyof operations> = operations[Operation] extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : never;

/** Admin helpers over the real admin API, through the typed client. */
export function admin(http: Http) {
  const client = apiClient(http, { adminToken: ADMIN_TOKEN });
  const expectCreated = <T>(result: HttpResult<T>): T => {
    if (result.status !== 201) throw new Error(`admin call failed: ${result.status} ${result.text}`);
    return result.body;
  };
  return {
    createOrg: async (body: JsonBody<'adminCreateOrg'>) => expectCreated(await exchange(client.POST('/admin/v1/orgs', { body }))).orgId,
    createAccount: async (orgId: string, name: string) =>
      expectCreated(await exchange(client.POST('/admin/v1/orgs/{orgId}/accounts', { params: { path: { orgId } }, body: { name } }))).accountId,
    createKey: async (body: JsonBody<'adminCreateApiKey'>) => expectCreated(await exchange(client.POST('/admin/v1/api-keys', { body }))),
    revokeKey: (keyId: string) => exchange(client.DELETE('/admin/v1/api-keys/{keyId}', { params: { path: { keyId } } })),
    raw: (method: string, path: string, json?: unknown, token = ADMIN_TOKEN) => http(method, path, { headers: { authorization: `Bearer ${token}` }, json }),
  };
}

/** The fields every problem+json answer carries. */
export function expectProblem(result: HttpResult<object>, status: number, code: string): void {
  expect({ status: result.status, code: (result.body as Record<string, unknown> | undefined)?.code }).toEqual({ status, code });
  expect(result.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(result.body).toEqual(
    expect.objectContaining({
      type: expect.any(String),
      title: expect.any(String),
      status,
      detail: expect.any(String),
      instance: expect.any(String),
      requestId: expect.any(String),
    }),
  );
  expect(result.text).not.toMatch(/at .*\.ts:\d+/);
}
