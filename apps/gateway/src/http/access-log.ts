import type { RequestHandler } from 'express';
import type { AccessLogger } from '@platform/logging';
import type { HttpMetrics } from './http-metrics';

const PROBES = new Set(['/healthz', '/readyz']);

/**
 * One structured line and one histogram sample per request, labelled with the route template the
 * route binder records (res.locals.route). Probes are left out: they would drown the log.
 */
export function accessLog(access: AccessLogger, metrics: HttpMetrics): RequestHandler {
  return (req, res, next) => {
    if (PROBES.has(req.path)) return next();
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = typeof res.locals.route === 'string' ? res.locals.route : 'unmatched';
      metrics.observe({ method: req.method, route, status: res.statusCode }, seconds);
      access.log({
        requestId: res.locals.requestId,
        method: req.method,
        route,
        status: res.statusCode,
        durationMs: Math.round(seconds * 1e4) / 10,
        keyId: res.locals.keyId,
      });
    });
    next();
  };
}
