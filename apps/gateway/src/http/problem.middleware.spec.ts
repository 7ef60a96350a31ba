import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { problem } from '@platform/errors';
import { createLogger } from '@platform/logging';
import { problemHandler } from './problem.middleware';

describe(problemHandler.name, () => {
  let server: Server;
  let base: string;

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
    app.use(problemHandler(createLogger({ service: 'problem-handler-test', level: 'silent' })));
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
});
