import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { ServerUnaryCall, ServiceError } from '@grpc/grpc-js';
import { problem } from '@platform/errors';
import { principalMetadata, type Principal } from '@platform/grpc';
import { createLogger } from '@platform/logging';
import { createCallGuard } from './call-guard';
import { echoDefinition, type EchoRequest, type EchoResponse } from './service.test-support';
import { methodName, unaryHandlers, type UnaryHandler } from './unary-handlers';

describe(unaryHandlers.name, () => {
  const key = randomBytes(32);
  const guard = createCallGuard(key);
  const principal: Principal = { keyId: 'k', orgId: 'acme', accountIds: [1], permissions: ['Echo_View'], org: { isRetailer: false, dimensionWhitelist: [] } };
  const logged: Record<string, unknown>[] = [];
  const logger = createLogger({
    service: 'unary-handlers-test',
    destination: new Writable({
      write(chunk, _encoding, done) {
        logged.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  });

  /** Runs the adapted grpc-js handler as the server would, with a signed principal. */
  const serve = (handler: UnaryHandler<typeof echoDefinition.echo>, access = 'Echo_View', request: EchoRequest = { orgId: 'acme', text: 'hi' }) => {
    const { echo } = unaryHandlers(echoDefinition, { echo: access }, logger, { echo: handler });
    const call = { request, metadata: principalMetadata(principal, key) } as unknown as ServerUnaryCall<EchoRequest, EchoResponse>;
    return new Promise<{ error: Partial<ServiceError> | null; response: EchoResponse | null }>((resolve) =>
      echo(call, (error, response) => resolve({ error: error as Partial<ServiceError> | null, response: response ?? null })),
    );
  };

  beforeEach(() => logged.splice(0));

  it('names each method from the path in the generated definition', () => {
    expect(methodName(echoDefinition.echo.path)).toBe('Echo');
  });

  it('serves a handler that checks its caller against the declared permission', async () => {
    const answer = await serve(async (request, call) => {
      guard.org(call, request.orgId);
      return { text: request.text, seeded: '' };
    });
    expect(answer).toEqual({ error: null, response: { text: 'hi', seeded: '' } });
  });

  it('checks the permission the method declares, not one the handler names', async () => {
    const answer = await serve(async (request, call) => {
      guard.org(call, request.orgId);
      return { text: request.text, seeded: '' };
    }, 'Echo_Edit');
    expect(answer.response).toBeNull();
    expect(answer.error?.details).toContain('Echo_Edit');
  });

  it('refuses to answer for a handler that never ran the guard, and logs it under the method name', async () => {
    const answer = await serve(async (request) => ({ text: request.text, seeded: '' }));
    expect(answer.response).toBeNull();
    expect(answer.error?.code).toBe(13);
    expect(logged).toEqual([
      expect.objectContaining({
        method: 'Echo',
        msg: 'gRPC handler failed',
        err: expect.objectContaining({ message: 'Echo answered without checking its caller (no guard call)' }),
      }),
    ]);
  });

  it('passes an AppError on as its problem without logging it', async () => {
    const answer = await serve(async (_request, call) => {
      guard.any(call);
      throw problem('ORG_NOT_FOUND', 'No such org.');
    });
    expect(answer.error?.code).toBe(5);
    expect(logged).toEqual([]);
  });

  it("logs a customer's host failing as a warning without a stack, and its own 5xx as an error with one", async () => {
    const failing = (error: Error) =>
      serve(async (_request, call) => {
        guard.any(call);
        throw error;
      });
    await failing(problem('FEED_UNREACHABLE', 'Could not resolve the host "feeds.example.com".'));
    await failing(problem('OBJECT_STORE_UNAVAILABLE', 'The object storage is unavailable.'));
    expect(logged.map((line) => [line.level, line.msg, line.code ?? null, 'err' in line])).toEqual([
      ['warn', 'gRPC call answered an outside host failing', 'FEED_UNREACHABLE', false],
      ['error', 'gRPC handler failed', null, true],
    ]);
    expect(logged[0].detail).toBe('Could not resolve the host "feeds.example.com".');
  });
});
