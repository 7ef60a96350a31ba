import type { RequestHandler } from 'express';
import { AppError, problem } from '@platform/errors';

interface KnownRoute {
  method: string;
  path: string;
}

/** The request paths an express-style route path (`/v2/org/:orgId/...`) matches, a trailing slash allowed. */
export function routePathPattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}/?$`);
}

/** 405 naming the methods the path does take, which the Allow header lists too. */
export function methodNotAllowedError(method: string, path: string, allow: string): AppError {
  return problem('METHOD_NOT_ALLOWED', `${method} is not supported on ${path}; use ${allow}.`, { headers: { Allow: allow } });
}

/**
 * Answers 405 with Allow for a path that exists under other methods, so a client that PATCHes
 * a PUT-only resource learns what to send instead of being told the resource does not exist.
 */
export function methodNotAllowed(routes: KnownRoute[]): RequestHandler {
  const patterns = routes.map(({ method, path }) => ({ method: method.toUpperCase(), regex: routePathPattern(path) }));
  return (req, _res, next) => {
    const allowed = [...new Set(patterns.filter((p) => p.regex.test(req.path)).map((p) => p.method))];
    if (allowed.length === 0) return next();
    next(methodNotAllowedError(req.method, req.path, allowed.join(', ')));
  };
}
