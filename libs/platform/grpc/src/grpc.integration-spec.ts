import { Client, makeGenericClientConstructor, Metadata, ServiceError } from '@grpc/grpc-js';
import { AppError, problem, validationFailed } from '@platform/errors';
import { createLogger, currentRequestId, withRequestId } from '@platform/logging';
import { processRegistry } from '@platform/telemetry';
import { freePort } from '@platform/testing';
import { callTimeLeftMs } from './call-deadline';
import { callUnary, checkHealth, createGrpcClient } from './grpc.client';
import { createGrpcServer, GrpcServerHandle, unary } from './grpc.server';

// A tiny JSON-coded service so this test exercises the real grpc-js transport without generated code.
const json = { serialize: (v: unknown) => Buffer.from(JSON.stringify(v)), deserialize: (b: Buffer) => JSON.parse(b.toString()) };
const definition = {
  echo: {
    path: '/test.Echo/Echo',
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
};
type EchoClient = Client & {
  echo: (req: { text: string }, md: Metadata, opts: { deadline: Date }, cb: (e: ServiceError | null, r: { text: string }) => void) => void;
};
const EchoClientCtor = makeGenericClientConstructor(definition, 'Echo') as unknown as new (...args: ConstructorParameters<typeof Client>) => EchoClient;

describe('gRPC server and client', () => {
  const logger = createLogger({ service: 'grpc-test', level: 'silent' });
  let handle: GrpcServerHandle;
  let address: string;

  beforeAll(async () => {
    handle = createGrpcServer({ logger, serviceNames: ['test.Echo'] });
    handle.server.addService(definition, {
      echo: unary<{ text: string }, { text: string }>(
        logger,
        'Echo',
        async ({ text }, served) => {
          if (text === 'whoami') return { text: currentRequestId() ?? 'none' };
          if (text === 'time-left') return { text: String(callTimeLeftMs(served)) };
          if (text === 'missing') throw problem('LABEL_NOT_FOUND', 'No such thing.');
          if (text === 'invalid') throw validationFailed([{ pointer: '/text', code: 'TOO_SHORT', detail: 'too short' }]);
          if (text === 'crash') throw new Error('secret database password in message');
          if (text === 'slow') await new Promise((r) => setTimeout(r, 500));
          return { text: text.toUpperCase() };
        },
        'test.Echo',
      ),
    });
    const port = await handle.listen('127.0.0.1', 0);
    address = `127.0.0.1:${port}`;
  });

  afterAll(() => handle.drain(1000));

  const call = (text: string, deadlineMs = 2000) => {
    const client = createGrpcClient(EchoClientCtor, address);
    return callUnary(client, client.echo, { text }, { deadlineMs, target: 'echo', method: 'echo' }).finally(() => client.close());
  };

  it("runs the handler with the caller's request id, which the client sends from its own", async () => {
    await expect(withRequestId('req-grpc-0001', () => call('whoami'))).resolves.toEqual({ text: 'req-grpc-0001' });
    await expect(call('whoami')).resolves.toEqual({ text: 'none' });
  });

  it('counts every call on both sides by method and status code', async () => {
    const count = async (name: string, labels: string) =>
      Number(new RegExp(`^${name}\\{${labels}\\} (\\d+)$`, 'm').exec(await processRegistry.getSingleMetricAsString(name))?.[1] ?? 0);
    const before = {
      served: await count('grpc_server_handled_total', 'grpc_service="test.Echo",grpc_method="Echo",grpc_code="NOT_FOUND"'),
      called: await count('grpc_client_handled_total', 'grpc_service="echo",grpc_method="echo",grpc_code="OK"'),
    };
    await call('hi');
    await call('missing').catch(() => undefined);
    expect(await count('grpc_server_handled_total', 'grpc_service="test.Echo",grpc_method="Echo",grpc_code="NOT_FOUND"')).toBe(before.served + 1);
    expect(await count('grpc_client_handled_total', 'grpc_service="echo",grpc_method="echo",grpc_code="OK"')).toBe(before.called + 1);
  });

  it('answers a call', async () => {
    await expect(call('hi')).resolves.toEqual({ text: 'HI' });
  });

  it('carries the problem code and field errors across the wire', async () => {
    await expect(call('missing')).rejects.toMatchObject({ status: 404, code: 'LABEL_NOT_FOUND' });
    const error = (await call('invalid').catch((e) => e)) as AppError;
    expect(error.errors).toEqual([{ pointer: '/text', code: 'TOO_SHORT', detail: 'too short' }]);
  });

  it('hides unexpected errors behind an opaque 500', async () => {
    const error = (await call('crash').catch((e) => e)) as AppError;
    expect(error).toMatchObject({ status: 500, code: 'INTERNAL_ERROR' });
    expect(error.detail).not.toContain('password');
  });

  it("lets the handler see how long its caller still waits (the client's deadline crosses the wire)", async () => {
    const left = Number((await call('time-left', 3_000)).text);
    expect(left).toBeGreaterThan(1_000);
    expect(left).toBeLessThanOrEqual(3_000);
  });

  it('enforces the deadline as a 504', async () => {
    await expect(call('slow', 100)).rejects.toMatchObject({ status: 504, code: 'UPSTREAM_TIMEOUT' });
  });

  it('reports grpc.health.v1 status as set', async () => {
    expect(await checkHealth(address)).toBe(false);
    handle.setServing(true);
    expect(await checkHealth(address)).toBe(true);
    expect(await checkHealth(address, 'test.Echo')).toBe(true);
  });

  it('reports an unreachable backend as 503 at once, not at the deadline, with Retry-After', async () => {
    const client = createGrpcClient(EchoClientCtor, `127.0.0.1:${await freePort()}`);
    for (let call = 0; call < 3; call++) {
      const started = Date.now();
      const error = await callUnary(client, client.echo, { text: 'x' }, { deadlineMs: 5000, target: 'echo' }).catch((e) => e);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(error).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', headers: { 'Retry-After': '1' } });
    }
    client.close();
  });

  it('uses a backend again within about 2 s of its return, however long it was down', async () => {
    const port = await freePort();
    const client = createGrpcClient(EchoClientCtor, `127.0.0.1:${port}`);
    const echo = () => callUnary(client, client.echo, { text: 'x' }, { deadlineMs: 5000, target: 'echo' });
    // 20 s of refused connections: grpc-js's default reconnect backoff (1 s growing by 1.6, jittered)
    // would by now wait several seconds before its next attempt.
    const downUntil = Date.now() + 20_000;
    while (Date.now() < downUntil) {
      await expect(echo()).rejects.toMatchObject({ status: 503 });
      await new Promise((r) => setTimeout(r, 500));
    }
    const returned = createGrpcServer({ logger, serviceNames: ['test.Echo'] });
    returned.server.addService(definition, { echo: unary<{ text: string }, { text: string }>(logger, 'echo', async ({ text }) => ({ text })) });
    await returned.listen('127.0.0.1', port);
    const back = Date.now();
    while (
      !(await echo().then(
        () => true,
        () => false,
      ))
    )
      await new Promise((r) => setTimeout(r, 50));
    expect(Date.now() - back).toBeLessThan(3000);
    client.close();
    await returned.drain(1000);
  }, 40_000);
});
