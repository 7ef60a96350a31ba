import { Client, Metadata, ServiceError, status } from '@grpc/grpc-js';
import { AppError } from '@platform/errors';
import { callUnary, neverReachedServer } from './grpc.client';

const failure = (code: status, details: string): ServiceError => Object.assign(new Error(details), { code, details, metadata: new Metadata() });
const REFUSED = failure(status.UNAVAILABLE, 'Stream refused by server');
const NOT_STARTED = failure(status.INTERNAL, 'Failed to start HTTP/2 stream with error: closed');
const PROCESSED = failure(status.UNAVAILABLE, 'Connection dropped');

/** A unary method that answers with the given outcomes in turn, recording each call's deadline. */
function scripted(outcomes: (ServiceError | { ok: number })[]) {
  const deadlines: Date[] = [];
  const method = (
    _request: unknown,
    _metadata: Metadata,
    options: { deadline: Date },
    callback: (error: ServiceError | null, response: { ok: number }) => void,
  ) => {
    deadlines.push(options.deadline);
    const outcome = outcomes.shift();
    setImmediate(() => (outcome instanceof Error ? callback(outcome, undefined as never) : callback(null, outcome as { ok: number })));
  };
  return { method, deadlines };
}

describe(callUnary.name, () => {
  const client = {} as Client;
  const options = { deadlineMs: 1000, target: 'backend' };

  it('sends a call the server never saw once more, within the same deadline', async () => {
    for (const first of [REFUSED, NOT_STARTED]) {
      const { method, deadlines } = scripted([first, { ok: 1 }]);
      await expect(callUnary(client, method, {}, options)).resolves.toEqual({ ok: 1 });
      expect(deadlines).toHaveLength(2);
      expect(deadlines[1]).toBe(deadlines[0]);
    }
  });

  it('does not resend a call the server may have processed', async () => {
    const { method, deadlines } = scripted([PROCESSED, { ok: 1 }]);
    await expect(callUnary(client, method, {}, options)).rejects.toBeInstanceOf(AppError);
    expect(deadlines).toHaveLength(1);
  });

  it('resends at most once', async () => {
    const { method, deadlines } = scripted([REFUSED, REFUSED, { ok: 1 }]);
    await expect(callUnary(client, method, {}, options)).rejects.toMatchObject({ status: 503 });
    expect(deadlines).toHaveLength(2);
  });
});

describe(neverReachedServer.name, () => {
  it('recognises refused and unstarted streams only', () => {
    expect([REFUSED, NOT_STARTED, PROCESSED, failure(status.INTERNAL, 'boom')].map(neverReachedServer)).toEqual([true, true, false, false]);
  });
});
