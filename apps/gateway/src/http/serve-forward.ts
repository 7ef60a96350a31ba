import { request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { RequestHandler } from 'express';
import { problem } from '@platform/errors';
import type { Logger } from '@platform/logging';
import { methodNotAllowedError } from './method-not-allowed';

/** The ad-serving paths generated tags point at (`PUBLIC_BASE_URL/serve/v1/...`). */
export const SERVE_PREFIX = '/serve/';

/** Headers that describe one connection, not the message: never passed on (RFC 9110, section 7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase()),
  );
  const kept: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name) && !named.has(name)) kept[name] = value;
  }
  return kept;
}

/**
 * Forwards the ad-serving paths (`/serve/...`) to the ad server, as the ingress does in a cluster, so that
 * a tag generated under `npm start` (which points at the gateway) works when pasted in a page. A streaming
 * pass-through: GET and HEAD only, the path and query kept, the ad server's status, headers and body
 * passed back as they are. These paths are public: nothing here reads an API key.
 */
export function forwardServe(adServerUrl: string, options: { logger: Logger; timeoutMs?: number }): RequestHandler {
  const target = new URL(adServerUrl);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const timeoutMs = options.timeoutMs ?? 10_000;
  return (req, res, next) => {
    if (!req.path.startsWith(SERVE_PREFIX)) return next();
    res.locals.route = `${SERVE_PREFIX}*`;
    if (req.method !== 'GET' && req.method !== 'HEAD') return next(methodNotAllowedError(req.method, req.path, 'GET, HEAD'));
    const headers = endToEnd(req.headers);
    delete headers.host;
    headers['x-forwarded-host'] = req.headers.host ?? '';
    headers['x-forwarded-proto'] = req.protocol;
    const forwardedFor = req.headers['x-forwarded-for'];
    const client = req.socket.remoteAddress ?? '';
    headers['x-forwarded-for'] = forwardedFor ? `${String(forwardedFor)}, ${client}` : client;

    const upstream = send(
      { protocol: target.protocol, hostname: target.hostname, port: target.port, method: req.method, path: req.originalUrl, headers, timeout: timeoutMs },
      (answer) => {
        res.status(answer.statusCode ?? 502);
        for (const [name, value] of Object.entries(endToEnd(answer.headers))) if (value !== undefined) res.setHeader(name, value);
        answer.pipe(res);
        answer.once('error', () => res.destroy());
      },
    );
    upstream.once('timeout', () => upstream.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })));
    upstream.once('error', (error: NodeJS.ErrnoException) => {
      if (res.headersSent || res.destroyed) {
        res.destroy();
        return;
      }
      options.logger.warn({ err: error, target: target.origin, path: req.path }, 'ad server not reached');
      // The gateway's problem handler answers these, as it answers every other error.
      if (error.code === 'ETIMEDOUT') next(problem('UPSTREAM_TIMEOUT', 'The ad server did not answer in time.'));
      else next(problem('BAD_GATEWAY', `The ad server at ${target.origin} could not be reached.`));
    });
    // A client that goes away stops the forwarded request too.
    res.once('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.end();
  };
}
