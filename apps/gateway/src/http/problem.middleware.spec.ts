import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { problem } from '@platform/errors';
import { createLogger } from '@platform/logging';
import { problemHandler } from './problem.middleware';

describe(problemHandler.name, () => {
  let server: Server;
  let base: string;
  const logged: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logged.push(JSON.parse(String(chunk)));
      done();
    },
  });

  beforeAll(async () => {
    const app = express();
    app.get('/unavailable', () => {
      throw problem('OBJECT_STORE_UNAVAILABLE', 'The object store did not answer.');
    });
    app.get('/limited', () => {
      throw problem('RATE_LIMITED', 'Slow down.', { headers: { 'Retry-After': '17' } });
    });
    app.get('/missing', () => {
      throw problem('ROUTE_NOT_FOUND', 'Nothing here.');
    });
    app.get('/feed-host-down', () => {
      throw problem('FEED_BAD_STATUS', "The feed's host answered 503.");
    });
    app.use(problemHandler(createLogger({ service: 'problem-handler-test', destination })));
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.each([
    ['/unavailable', 503, '1'],
    ['/limited', 429, '17'],
    ['/missing', 404, null],
  ])('answers %s with %i and Retry-After %p: every 503 and 429 says when to try again', async (path, status, retryAfter) => {
    const response = await fetch(`${base}${path}`);
    expect({ status: response.status, retryAfter: response.headers.get('retry-after') }).toEqual({ status, retryAfter });
  });

  it("logs its own 5xx as an error with the stack, a customer's host failing as a warning without one, and a 4xx not at all", async () => {
    logged.splice(0);
    for (const path of ['/unavailable', '/feed-host-down', '/missing']) await fetch(`${base}${path}`);
    expect(logged.map((line) => [line.level, line.msg, line.path, line.code ?? null, 'err' in line])).toEqual([
      ['error', 'request failed', '/unavailable', null, true],
      ['warn', 'request answered an outside host failing', '/feed-host-down', 'FEED_BAD_STATUS', false],
    ]);
  });
});
