import type { RequestHandler, Response } from 'express';
import { withRequestId } from '@platform/logging';
import { extractTraceContext, markStatus, SpanKind, startSpan, withContext, type Context } from '@platform/telemetry';

const SCOPE = Symbol('request scope');

interface RequestScope {
  requestId: string;
  trace: Context | undefined;
}

/**
 * Makes a request's id current (every log line names it, every gRPC call passes it on) and, with
 * tracing on, opens its server span (continuing a caller's `traceparent`), named after the route
 * template once one matched and ended when the answer is sent. Runs after `requestId`.
 */
export const requestScope: RequestHandler = (req, res, next) => {
  const requestId = String(res.locals.requestId);
  const started = startSpan(`${req.method}`, {
    kind: SpanKind.SERVER,
    parent: extractTraceContext((key) => req.get(key)),
    attributes: { 'http.request.method': req.method, 'url.path': req.path, 'http.request_id': requestId },
  });
  if (started) {
    res.once('finish', () => {
      const route = typeof res.locals.route === 'string' ? res.locals.route : undefined;
      if (route) {
        started.span.updateName(`${req.method} ${route}`);
        started.span.setAttribute('http.route', route);
      }
      started.span.setAttribute('http.response.status_code', res.statusCode);
      markStatus(started.span, res.statusCode >= 500);
      started.span.end();
    });
  }
  const scope: RequestScope = { requestId, trace: started?.context };
  (res.locals as Record<symbol, RequestScope>)[SCOPE] = scope;
  inScope(scope, next);
};

function inScope<T>(scope: RequestScope, work: () => T): T {
  return withRequestId(scope.requestId, () => withContext(scope.trace, work));
}

/**
 * Runs `work` in the request's scope again. Express hands a request on from callbacks that do not
 * keep async context (a body parser's stream events), so a handler re-enters it before its work.
 */
export function inRequestScope<T>(res: Response, work: () => T): T {
  const scope = (res.locals as Record<symbol, RequestScope | undefined>)[SCOPE];
  return scope ? inScope(scope, work) : work();
}
