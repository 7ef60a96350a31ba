import { Writable } from 'node:stream';
import { connect, type NatsConnection } from 'nats';
import { z } from '@platform/config';
import { decodeJobProgress, encodeJobRequest, JOB_PROGRESS_STREAM, JOB_REQUEST_STREAM, prefixedJobRequestSubject, type JobProgress } from '@platform/jobs';
import { DEAD_LETTER_STREAM, publish } from '@platform/nats';
import { deletePrefixedStreams, freePort, uniquePrefix } from '@platform/testing';
import { runWorker, workerFields, type WorkerSpec } from './run-worker';

jest.setTimeout(60_000);

describe(runWorker.name, () => {
  const prefix = uniquePrefix('wrk');
  let nc: NatsConnection;

  beforeAll(async () => {
    nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
  });

  afterAll(async () => {
    await nc?.close();
    await deletePrefixedStreams(prefix);
  });

  const configSchema = z.object({ ...workerFields, ECHO_SUFFIX: z.string().default('!') });
  type Config = z.infer<typeof configSchema>;

  it('runs a job kind from its request to one Completed, serves health, and shuts down in order with exit 0', async () => {
    const spec: WorkerSpec<Config> = {
      name: 'echo-worker',
      configSchema,
      streams: [JOB_REQUEST_STREAM, JOB_PROGRESS_STREAM, DEAD_LETTER_STREAM],
      jobs: async ({ config }) => [
        {
          kind: 'echo',
          run: async (job) => ({ totalItems: 1, totalProcessed: 1, message: `${String((job.payload as { text: string }).text)}${config.ECHO_SUFFIX}` }),
        },
      ],
    };
    const exits: number[] = [];
    const lines: string[] = [];
    const logDestination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const healthPort = await freePort();
    const worker = await runWorker(spec, {
      env: { NATS_PREFIX: prefix, HEALTH_PORT: String(healthPort), NODE_ENV: 'test', LOG_LEVEL: 'info', ECHO_SUFFIX: '?' },
      exit: (code) => exits.push(code),
      logDestination,
    });
    expect(worker?.healthPort).toBe(healthPort);
    expect(lines.join('')).toMatch(/echo-worker ready/);
    expect((await fetch(`http://127.0.0.1:${healthPort}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${healthPort}/readyz`)).status).toBe(200);

    const progress: JobProgress[] = [];
    const sub = nc.subscribe(`${prefix}jobs.progress.echo`);
    void (async () => {
      for await (const message of sub) progress.push(decodeJobProgress(message.data));
    })();
    await publish(
      nc.jetstream(),
      prefixedJobRequestSubject(prefix, 'echo'),
      encodeJobRequest({ queueId: 'q-1', accountId: 3, kind: 'echo', payload: { text: 'hello' } }),
      {
        msgId: 'job:q-1',
      },
    );
    const deadline = Date.now() + 15_000;
    while (!progress.some((e) => e.status === 3) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    sub.unsubscribe();
    expect(progress.map((e) => [e.status, e.message])).toEqual([
      [2, 'Processing'],
      [3, 'hello?'],
    ]);

    await worker?.lifecycle.shutdown('test');
    expect(exits).toEqual([0]);
    await expect(fetch(`http://127.0.0.1:${healthPort}/healthz`)).rejects.toThrow();
  });

  it('exits with 1 when its configuration is invalid', async () => {
    const exits: number[] = [];
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const worker = await runWorker(
      { name: 'bad-worker', configSchema, streams: [], jobs: async () => [] },
      { env: { HEALTH_PORT: 'not-a-port' }, exit: (code) => exits.push(code) },
    );
    errors.mockRestore();
    expect(worker).toBeUndefined();
    expect(exits).toEqual([1]);
  });
});
