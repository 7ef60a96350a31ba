import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { makeGenericClientConstructor, type Client } from '@grpc/grpc-js';
import { connect, StringCodec, type NatsConnection } from 'nats';
import { createConnection } from 'mysql2/promise';
import { AppError } from '@platform/errors';
import { callUnary, checkHealth, createGrpcClient, Metadata, principalMetadata, type Principal } from '@platform/grpc';
import { createLogger } from '@platform/logging';
import { withTransaction } from '@platform/mysql';
import { deletePrefixedStreams, dropPrefixedSchemas, freePort, uniquePrefix } from '@platform/testing';
import { grpcServiceName, startGrpcService, type RunningGrpcService } from './grpc-service';
import { runGrpcService } from './run-grpc-service';
import { unaryHandlers } from './unary-handlers';
import { createGreetings, echoConfigSchema, echoDefinition, type EchoRequest, type EchoResponse, type EchoSpec } from './service.test-support';

jest.setTimeout(60_000);

const ADMIN_URL = process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';

describe('gRPC service shape (real MariaDB and NATS)', () => {
  const prefix = uniquePrefix('svc');
  const principalKey = randomBytes(32);
  const env = {
    MYSQL_SCHEMA_PREFIX: prefix,
    NATS_PREFIX: prefix,
    GRPC_PORT: '0',
    INTERNAL_AUTH_KEY: principalKey.toString('hex'),
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
  };
  const principal: Principal = { keyId: 'k', orgId: 'acme', accountIds: [1], permissions: ['Echo_View'], org: { isRetailer: false, dimensionWhitelist: [] } };
  const silent = createLogger({ service: 'platform-service-test', level: 'silent' });
  const EchoClient = makeGenericClientConstructor(echoDefinition, 'EchoService');
  const seedRuns: string[] = [];
  let nc: NatsConnection;

  const spec: EchoSpec = {
    name: 'echo',
    configSchema: echoConfigSchema,
    database: { base: 'echo', migrations: [createGreetings] },
    streams: [{ name: 'ECHO_EVENTS', subjects: ['echo.>'], maxAgeMs: 3600_000 }],
    seed: async ({ db, config }) => {
      seedRuns.push(config.ECHO_GREETING);
      await db.knex('greetings').insert({ id: 'default', text: config.ECHO_GREETING }).onConflict('id').merge();
    },
    definition: echoDefinition,
    implementation: ({ logger, guard, db, events }) =>
      unaryHandlers(echoDefinition, { echo: 'Echo_View' }, logger, {
        echo: async (request, call) => {
          guard.org(call, request.orgId);
          const [greeting] = await db.execute<{ text: string }>('SELECT text FROM greetings WHERE id = ?', ['default']);
          await withTransaction(db.knex, (trx) =>
            events.record(trx, { subject: 'echo.echoed', msgId: randomBytes(8).toString('hex'), payload: { text: request.text } }),
          );
          return { text: request.text, seeded: greeting?.text ?? '' };
        },
      }),
  };

  const config = (overrides: Record<string, string> = {}) => echoConfigSchema.parse({ ...env, ...overrides });
  const echo = (port: number, request: EchoRequest, metadata = principalMetadata(principal, principalKey)) => {
    const client = createGrpcClient(EchoClient, `127.0.0.1:${port}`) as unknown as Client & {
      echo: Parameters<typeof callUnary<EchoRequest, EchoResponse>>[1];
    };
    return callUnary(client, client.echo, request, { metadata, deadlineMs: 5_000, target: 'echo' }).finally(() => client.close());
  };
  /** Connections the service's DB user holds right now: what a leaked pool would show. */
  const connectionsOfServiceUser = async () => {
    const admin = await createConnection(ADMIN_URL);
    try {
      const [rows] = await admin.query<import('mysql2').RowDataPacket[]>('SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE USER = ?', [
        `${prefix}echo`,
      ]);
      return Number(rows[0]?.['n']);
    } finally {
      await admin.end();
    }
  };

  beforeAll(async () => {
    nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
  });

  afterAll(async () => {
    await nc?.close();
    await Promise.all([dropPrefixedSchemas(prefix), deletePrefixedStreams(prefix)]);
  });

  it('names the service for health checks from its definition', () => {
    expect(grpcServiceName(echoDefinition)).toBe('test.v1.EchoService');
    expect(() => grpcServiceName({})).toThrow(/no methods/);
  });

  describe(startGrpcService.name, () => {
    let service: RunningGrpcService;

    beforeAll(async () => {
      service = await startGrpcService(config(), silent, spec);
    });

    afterAll(async () => {
      await service?.drain();
      await service?.close();
    });

    it('serves the handlers built from the opened dependencies: migrated, seeded, guarded', async () => {
      expect(await echo(service.grpcPort, { orgId: 'acme', text: 'hi' })).toEqual({ text: 'hi', seeded: 'hello' });
      expect(seedRuns).toContain('hello');
      const refused = await echo(service.grpcPort, { orgId: 'acme', text: 'hi' }, new Metadata()).catch((e: AppError) => e);
      expect(refused).toMatchObject({ status: 401, code: 'PRINCIPAL_MISSING' });
      const otherOrg = await echo(service.grpcPort, { orgId: 'other', text: 'hi' }).catch((e: AppError) => e);
      expect(otherOrg).toMatchObject({ status: 404, code: 'ORG_NOT_FOUND' });
    });

    it('publishes recorded events through the outbox on the prefixed subject of its declared stream', async () => {
      const sc = StringCodec();
      const received: { subject: string; data: { text?: string } }[] = [];
      const sub = nc.subscribe(`${prefix}echo.>`, { callback: (_e, msg) => received.push({ subject: msg.subject, data: JSON.parse(sc.decode(msg.data)) }) });
      await echo(service.grpcPort, { orgId: 'acme', text: 'evented' });
      const deadline = Date.now() + 5_000;
      const evented = () => received.find((message) => message.data.text === 'evented');
      while (!evented() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      sub.unsubscribe();
      expect(evented()).toEqual({ subject: `${prefix}echo.echoed`, data: { text: 'evented' } });
      const stream = await (await nc.jetstreamManager()).streams.info(`${prefix}ECHO_EVENTS`);
      expect(stream.config.subjects).toEqual([`${prefix}echo.>`]);
      expect(stream.state.messages).toBeGreaterThanOrEqual(1);
    });

    it('reports health per service and overall, and readiness from its connections', async () => {
      const address = `127.0.0.1:${service.grpcPort}`;
      expect(await checkHealth(address, 'test.v1.EchoService')).toBe(true);
      expect(await checkHealth(address, '')).toBe(true);
      expect(await service.ready()).toBe(true);
      service.setServing(false);
      expect(await checkHealth(address, 'test.v1.EchoService')).toBe(false);
      expect(await checkHealth(address, '')).toBe(false);
      service.setServing(true);
      expect(await checkHealth(address, '')).toBe(true);
    });
  });

  it('closes what it opened when starting fails part-way (NATS unreachable)', async () => {
    const unreachable = `nats://127.0.0.1:${await freePort()}`;
    await expect(startGrpcService(config({ NATS_URL: unreachable }), silent, spec)).rejects.toThrow();
    expect(await connectionsOfServiceUser()).toBe(0);
  });

  it('starts background work before serving, stops it once on drain after the last call, and fails the start-up when it cannot start', async () => {
    const events: string[] = [];
    const withBackground = (start: () => Promise<{ stop(): Promise<void> }>): EchoSpec => ({
      ...spec,
      implementation: (deps) => {
        deps.runInBackground('probe', start);
        return spec.implementation(deps);
      },
    });
    const running = await startGrpcService(
      config(),
      silent,
      withBackground(async () => {
        events.push('started');
        return { stop: async () => void events.push('stopped') };
      }),
    );
    expect(events).toEqual(['started']);
    expect(await running.ready()).toBe(true);
    await running.drain();
    await running.close();
    expect(events).toEqual(['started', 'stopped']);

    await expect(
      startGrpcService(
        config(),
        silent,
        withBackground(() => Promise.reject(new Error('consumer refused'))),
      ),
    ).rejects.toThrow('consumer refused');
    expect(await connectionsOfServiceUser()).toBe(0);
  });

  describe(runGrpcService.name, () => {
    const logged = () => {
      const lines: Record<string, unknown>[] = [];
      const destination = new Writable({
        write(chunk, _encoding, done) {
          for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
          done();
        },
      });
      return { lines, destination };
    };
    const exitCode = () => {
      let resolve!: (code: number) => void;
      const exited = new Promise<number>((r) => (resolve = r));
      return { exit: (code: number) => resolve(code), exited };
    };

    it('logs "<name> ready" with the port, and on shutdown stops serving, drains, closes and exits 0', async () => {
      const { lines, destination } = logged();
      const { exit, exited } = exitCode();
      const listenersBefore = process.listenerCount('SIGTERM');
      const started = await runGrpcService(spec, { env: { ...env, LOG_LEVEL: 'info' }, exit, logDestination: destination });
      expect(started).toBeDefined();
      const port = started?.service.grpcPort as number;
      expect(lines).toContainEqual(expect.objectContaining({ msg: 'echo ready', grpcPort: port, service: 'echo' }));
      expect(started?.lifecycle.isReady()).toBe(true);
      expect(await echo(port, { orgId: 'acme', text: 'before' })).toMatchObject({ text: 'before' });
      expect(process.listenerCount('SIGTERM')).toBe(listenersBefore + 1);

      // What the installed SIGTERM handler calls; a real signal would also reach the test runner.
      void started?.lifecycle.shutdown('test');
      expect(await exited).toBe(0);
      expect(started?.lifecycle.isReady()).toBe(false);
      expect(await checkHealth(`127.0.0.1:${port}`, '', 500)).toBe(false);
      expect(await connectionsOfServiceUser()).toBe(0);
      expect(process.listenerCount('SIGTERM')).toBe(listenersBefore);
      const messages = lines.map((line) => line['msg']);
      expect(messages.indexOf('shutdown complete')).toBeGreaterThan(messages.indexOf('echo ready'));
    });

    it('exits 1 without starting when the config is invalid, naming the variable', async () => {
      const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
      const { exit, exited } = exitCode();
      expect(await runGrpcService(spec, { env: { ...env, GRPC_PORT: 'not-a-port' }, exit })).toBeUndefined();
      expect(await exited).toBe(1);
      expect(errors).toHaveBeenCalledWith(expect.stringMatching(/^echo: Invalid configuration:[\s\S]*GRPC_PORT/));
      errors.mockRestore();
    });

    it('listens on the port SERVICE_ENDPOINTS declares when GRPC_PORT is unset, and refuses to guess for a service it does not list', async () => {
      const withoutPort: Record<string, string> = { ...env };
      delete withoutPort.GRPC_PORT;
      const { lines, destination } = logged();
      const { exit, exited } = exitCode();
      expect(await runGrpcService(spec, { env: { ...withoutPort, LOG_LEVEL: 'info' }, exit, logDestination: destination })).toBeUndefined();
      expect(await exited).toBe(1);
      const failure = lines.find((line) => line['msg'] === 'echo failed to start');
      expect(JSON.stringify(failure)).toContain('has no SERVICE_ENDPOINTS entry (@contracts/proto); set GRPC_PORT');
    });

    it('with SCHEMA_MIGRATIONS=only migrates the schema and exits 0 without serving; a require-current replica of a newer build then refuses to start', async () => {
      const migrateOnly: EchoSpec = { ...spec, name: 'echo-migrate', database: { base: 'echo_migrate', migrations: [createGreetings] } };
      // NATS unreachable: the migration run never gets that far, and needs nothing but MySQL.
      const unreachable = `nats://127.0.0.1:${await freePort()}`;
      const { lines, destination } = logged();
      const { exit, exited } = exitCode();
      const migrateEnv = { ...env, LOG_LEVEL: 'info', NATS_URL: unreachable, SCHEMA_MIGRATIONS: 'only' };
      expect(await runGrpcService(migrateOnly, { env: migrateEnv, exit, logDestination: destination })).toBeUndefined();
      expect(await exited).toBe(0);
      const messages = lines.map((line) => line['msg']);
      expect(messages).toContain('echo-migrate: schema migrations done');
      expect(messages).not.toContain('echo-migrate ready');
      const admin = await createConnection(process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306');
      const [tables] = await admin.query('SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME', [
        `${prefix}echo_migrate`,
      ]);
      await admin.end();
      expect((tables as { name: string }[]).map((row) => row.name)).toEqual(expect.arrayContaining(['greetings', 'outbox']));

      const newerBuild: EchoSpec = {
        ...migrateOnly,
        database: {
          ...migrateOnly.database,
          migrations: [createGreetings, { name: '20261123090000_add_more', up: async () => undefined, down: async () => undefined }],
        },
      };
      const replica = logged();
      const replicaExit = exitCode();
      const replicaEnv = { ...env, LOG_LEVEL: 'info', SCHEMA_MIGRATIONS: 'require-current' };
      expect(await runGrpcService(newerBuild, { env: replicaEnv, exit: replicaExit.exit, logDestination: replica.destination })).toBeUndefined();
      expect(await replicaExit.exited).toBe(1);
      expect(JSON.stringify(replica.lines.find((line) => line['msg'] === 'echo-migrate failed to start'))).toContain('20261123090000_add_more');
    });

    it('exits 1 and says why when starting fails', async () => {
      const { lines, destination } = logged();
      const { exit, exited } = exitCode();
      const unreachable = `nats://127.0.0.1:${await freePort()}`;
      expect(await runGrpcService(spec, { env: { ...env, LOG_LEVEL: 'info', NATS_URL: unreachable }, exit, logDestination: destination })).toBeUndefined();
      expect(await exited).toBe(1);
      expect(lines).toContainEqual(expect.objectContaining({ level: 'fatal', msg: 'echo failed to start' }));
      expect(lines.map((line) => line['msg'])).not.toContain('echo ready');
    });
  });
});
