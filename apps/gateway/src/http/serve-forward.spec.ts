import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createAccessLogger, createLogger } from '@platform/logging';
import { createGatewayApp } from './app';
import { createHttpMetrics } from './http-metrics';
import { forwardServe } from './serve-forward';

const listen = (server: Server) =>
  new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

describe('the gateway forwarding /serve/ to the ad server (AD_SERVER_URL)', () => {
  const logger = createLogger({ service: 'gateway', level: 'silent' });
  const seen: { method?: string; url?: string; headers: IncomingHttpHeaders }[] = [];
  let adServer: Server;
  let adServerUrl: string;
  const gateways: Server[] = [];

  /** The gateway's express edge, with an API pipeline that asks every request for an API key. */
  async function gateway(target: string | undefined): Promise<string> {
    const apiKeyPipeline = express.Router();
    apiKeyPipeline.use((_req, res) => res.status(401).json({ code: 'API_KEY_REQUIRED' }));
    const app = createGatewayApp({
      logger,
      accessLogger: createAccessLogger({ service: 'gateway', level: 'silent' }),
      metrics: createHttpMetrics(),
      trustProxy: false,
      openApi: {},
      health: { live: (_req, res) => res.end(), ready: (_req, res) => res.end() },
      routers: [apiKeyPipeline],
      knownRoutes: [],
      serveForward: target ? forwardServe(target, { logger, timeoutMs: 2_000 }) : undefined,
    });
    const server = createServer(app);
    gateways.push(server);
    return listen(server);
  }

  beforeAll(async () => {
    // A tiny stand-in for the ad server: echoes what it was asked, with headers of its own.
    adServer = createServer((req, res) => {
      seen.push({ method: req.method, url: req.url, headers: req.headers });
      if (req.url?.startsWith('/serve/v1/missing')) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('no such placement');
        return;
      }
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'x-ad-decision': 'campaign-7',
        'set-cookie': ['a=1; Path=/', 'b=2; Path=/'],
      });
      res.end(req.method === 'HEAD' ? undefined : `<div>ad for ${req.url}</div>`);
    });
    adServerUrl = await listen(adServer);
  });

  beforeEach(() => {
    seen.length = 0;
  });

  afterAll(async () => {
    await Promise.all([adServer, ...gateways].map(close));
  });

  it('passes a GET with its path and query to the ad server and its status, headers and body back, asking no API key and adding no security header', async () => {
    const base = await gateway(adServerUrl);
    const response = await fetch(`${base}/serve/v1/display/42?w=300&h=250&gdpr=0`, { headers: { 'user-agent': 'a-browser', cookie: 'uid=9' } });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('<div>ad for /serve/v1/display/42?w=300&h=250&gdpr=0</div>');
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('x-ad-decision')).toBe('campaign-7');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    // The ad server's answer is framed in publishers' pages: the API's CSP and frame rules must not be added.
    expect(response.headers.get('content-security-policy')).toBeNull();
    expect(response.headers.get('x-frame-options')).toBeNull();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/serve/v1/display/42?w=300&h=250&gdpr=0' });
    expect(seen[0].headers).toMatchObject({ 'user-agent': 'a-browser', cookie: 'uid=9', 'x-forwarded-host': new URL(base).host, 'x-forwarded-proto': 'http' });
    expect(seen[0].headers['x-forwarded-for']).toMatch(/127\.0\.0\.1$/);
  });

  it("passes the ad server's own error status back as it is", async () => {
    const base = await gateway(adServerUrl);
    const response = await fetch(`${base}/serve/v1/missing`);
    expect(response.status).toBe(404);
    expect(await response.text()).toBe('no such placement');
  });

  it('forwards HEAD, with no body', async () => {
    const base = await gateway(adServerUrl);
    const response = await fetch(`${base}/serve/v1/vast/5`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ad-decision')).toBe('campaign-7');
    expect(seen.map((request) => request.method)).toEqual(['HEAD']);
  });

  it('refuses any other method with 405 and Allow, without calling the ad server', async () => {
    const base = await gateway(adServerUrl);
    const response = await fetch(`${base}/serve/v1/click/5`, { method: 'POST', body: 'x' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(seen).toEqual([]);
  });

  it('answers a 502 problem when the ad server cannot be reached', async () => {
    const gone = createServer();
    const goneUrl = await listen(gone);
    await close(gone);
    const base = await gateway(goneUrl);
    const response = await fetch(`${base}/serve/v1/display/42`);
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await response.json()).toMatchObject({ status: 502, code: 'BAD_GATEWAY', instance: '/serve/v1/display/42' });
  });

  it('leaves every other path to the API pipeline', async () => {
    const base = await gateway(adServerUrl);
    for (const path of ['/v2/org/1/channels', '/serve', '/served/v1/x']) {
      const response = await fetch(`${base}${path}`);
      expect({ path, status: response.status }).toEqual({ path, status: 401 });
    }
    expect(seen).toEqual([]);
  });

  it('forwards nothing when AD_SERVER_URL is unset (a cluster, where the ingress routes /serve/)', async () => {
    const base = await gateway(undefined);
    const response = await fetch(`${base}/serve/v1/display/42`);
    expect(response.status).toBe(401);
    expect(seen).toEqual([]);
  });
});
