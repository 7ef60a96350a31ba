import { randomBytes } from 'node:crypto';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '@platform/testing';
import { admin, E2eSystem, expectProblem, Http, httpClient, startE2eSystem } from './e2e-system';

jest.setTimeout(180_000);

/** OTLP span kinds. */
const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;

/** The value of one Prometheus sample whose line starts with `series` (name and labels as written), or undefined. */
function sample(metrics: string, series: RegExp): number | undefined {
  const line = metrics.split('\n').find((l) => series.test(l));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function scrape(url: string): Promise<string> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  return response.text();
}

describe('observability: metrics, traces and request ids across the gateway, a service and a worker', () => {
  let receiver: OtlpReceiver;
  let system: E2eSystem;
  let http: Http;
  let key: string;
  let accountId: number;
  const requestId = `obs-upload-${randomBytes(6).toString('hex')}`;
  let queueId: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    // The upload's path needs storage-library and the worker only.
    system = await startE2eSystem('ob', {
      services: ['storage-library'],
      workers: ['storage-worker'],
      logLevel: 'debug',
      // Spans leave each process within a fifth of a second, so the test need not wait out the default 5 s batch.
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '200' },
    });
    http = httpClient(system.baseUrl);
    const a = admin(http);
    const orgId = await a.createOrg({ name: 'Observed Retail', isRetailer: true });
    accountId = await a.createAccount(orgId, 'Observed');
    key = (await a.createKey({ orgId, accountIds: [accountId], permissions: ['*'] })).apiKey;

    // One request that crosses every hop: the gateway stages the upload, storage-library queues the
    // job (a MySQL transaction writing the queue row and the outbox event), the relay publishes it,
    // and storage-worker extracts it.
    const form = new FormData();
    form.append('file', new Blob([randomBytes(2_000)]), 'traced.png');
    const response = await fetch(`${system.baseUrl}/v2/accounts/${accountId}/asset-library`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'x-request-id': requestId },
      body: form,
    });
    expect(response.status).toBe(200);
    queueId = ((await response.json()) as { queueId: string }).queueId;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const queue = await http<{ status: string }>('GET', `/v2/queues/${queueId}/status`, { key });
      if (queue.body.status === 'Completed') break;
      if (queue.body.status === 'Failed' || Date.now() > deadline) throw new Error(`upload ended ${queue.body.status}`);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  });

  afterAll(async () => {
    if (system) expect(await system.stop()).toEqual([0, 0]);
    await receiver?.close();
  });

  describe('traces', () => {
    let trace: ReceivedSpan[];
    let root: ReceivedSpan;

    beforeAll(async () => {
      // The gateway's span of the upload names the request id; its trace is the one to follow.
      const spans = await receiver.waitFor((all) => {
        const gatewaySpan = all.find((span) => span.service === 'gateway' && span.attributes['http.request_id'] === requestId);
        return gatewaySpan !== undefined && all.some((span) => span.traceId === gatewaySpan.traceId && span.service === 'storage-worker');
      });
      root = spans.find((span) => span.service === 'gateway' && span.attributes['http.request_id'] === requestId) as ReceivedSpan;
      trace = spans.filter((span) => span.traceId === root.traceId);
    });

    it('has one trace from the gateway request through gRPC into the service and its MySQL queries', () => {
      expect(root).toMatchObject({ kind: SERVER, name: 'POST /v2/accounts/:accountId/asset-library', parentSpanId: undefined });
      expect(root.attributes).toMatchObject({ 'http.route': '/v2/accounts/:accountId/asset-library', 'http.response.status_code': 200 });

      const call = trace.find((span) => span.service === 'gateway' && span.kind === CLIENT && span.attributes['rpc.system'] === 'grpc');
      expect(call).toBeDefined();
      const served = trace.find((span) => span.service === 'storage-library' && span.kind === SERVER && span.parentSpanId === call?.spanId);
      expect(served?.name).toMatch(/^storagelibrary\.v1\.\w+\/\w+$/);
      const queries = trace.filter((span) => span.service === 'storage-library' && span.attributes['db.system'] === 'mysql');
      expect(queries.length).toBeGreaterThan(0);
      expect(queries.map((span) => span.attributes['db.statement']).join('\n')).toMatch(/insert into `outbox`/i);
    });

    it('continues across NATS, through the outbox, into the worker that ran the job', () => {
      const consumed = trace.filter((span) => span.service === 'storage-worker' && span.kind === CONSUMER);
      expect(consumed.map((span) => span.name)).toContain(`${system.prefix}jobs.requested.asset-upload process`);
      // Its parent is a span of the service call that wrote the outbox row, not a new root.
      const serviceSpanIds = new Set(trace.filter((span) => span.service === 'storage-library').map((span) => span.spanId));
      expect(consumed.some((span) => serviceSpanIds.has(span.parentSpanId as string))).toBe(true);
    });

    it('records no parameter values in the statements it keeps', () => {
      for (const span of trace.filter((s) => s.attributes['db.system'] === 'mysql')) {
        expect(String(span.attributes['db.statement'])).not.toContain(queueId);
      }
    });
  });

  describe('request ids', () => {
    it("names the request on the service's and the worker's log lines of its work", () => {
      const lines = (output: string) =>
        output
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      const service = system.otherBackends.find((proc) => proc.name === 'storage-library') ?? system.processes.find((proc) => proc.name === 'storage-library');
      const worker = system.otherBackends.find((proc) => proc.name === 'storage-worker');
      const serviceLines = lines(service?.output() ?? '').filter((line) => line.requestId === requestId);
      expect(serviceLines.map((line) => line.msg)).toContain('gRPC call served');
      const workerLines = lines(worker?.output() ?? '').filter((line) => line.requestId === requestId);
      expect(workerLines).toEqual(expect.arrayContaining([expect.objectContaining({ msg: 'job completed', queueId })]));
    });

    it('answers every problem with the request id the caller sent', async () => {
      const answer = await http('GET', '/v2/queues/00000000-0000-0000-0000-000000000000/status', { key, headers: { 'x-request-id': 'obs-missing-queue-1' } });
      expectProblem(answer, 404, 'QUEUE_NOT_FOUND');
      expect(answer.body).toMatchObject({ requestId: 'obs-missing-queue-1' });
      expect(answer.headers.get('x-request-id')).toBe('obs-missing-queue-1');
    });
  });

  describe('metrics', () => {
    it("the gateway counts requests by route and status, its gRPC calls by method and code, and its process's resources", async () => {
      const metrics = await scrape(system.metricsUrl);
      expect(
        sample(metrics, /^http_server_request_duration_seconds_count\{method="POST",route="\/v2\/accounts\/:accountId\/asset-library",status="200"\}/),
      ).toBe(1);
      expect(sample(metrics, /^grpc_client_handled_total\{grpc_service="storage-library",grpc_method="\w+",grpc_code="OK"\}/)).toBeGreaterThan(0);
      expect(sample(metrics, /^process_cpu_seconds_total /)).toBeGreaterThan(0);
    });

    it('a service counts the calls it answered by method and code, and its outbox backlog', async () => {
      await http('GET', '/v2/queues/00000000-0000-0000-0000-000000000001/status', { key });
      const metrics = await scrape(system.metricsUrls['storage-library']);
      expect(sample(metrics, /^grpc_server_handled_total\{grpc_service="storagelibrary\.v1\.\w+",grpc_method="\w+",grpc_code="OK"\}/)).toBeGreaterThan(0);
      expect(sample(metrics, /^grpc_server_handled_total\{[^}]*grpc_code="NOT_FOUND"\}/)).toBeGreaterThan(0);
      expect(sample(metrics, /^grpc_server_handling_seconds_bucket\{[^}]*le="\+Inf"/)).toBeGreaterThan(0);
      expect(sample(metrics, /^outbox_published_total /)).toBeGreaterThan(0);
      expect(sample(metrics, /^outbox_pending_events /)).toBe(0);
      expect(sample(metrics, /^outbox_oldest_pending_seconds /)).toBe(0);
    });

    it('a worker counts its jobs by outcome, how long they ran and waited, and its backlog', async () => {
      const metrics = await scrape(system.metricsUrls['storage-worker']);
      expect(sample(metrics, /^job_runs_total\{kind="asset-upload",outcome="completed"\}/)).toBe(1);
      expect(sample(metrics, /^job_run_duration_seconds_count\{kind="asset-upload",outcome="completed"\}/)).toBe(1);
      expect(sample(metrics, /^job_queue_wait_seconds_count\{kind="asset-upload"\}/)).toBe(1);
      expect(sample(metrics, /^job_queue_pending\{kind="asset-upload"\}/)).toBe(0);
    });
  });
});
