import type { RequestHandler } from 'express';
import { AppError } from '@platform/errors';

interface KnownRoute {
  method: string;
  path: string;
}

/**
 * Answers 405 with Allow for a path that exists under other methods, so a client that PATCHes
 * a PUT-only resource learns what to send instead of being told the resource does not exist.
 */
export function methodNotAllowed(routes: KnownRoute[]): RequestHandler {
  const patterns = routes.map(({ method, path }) => ({
    method: method.toUpperCase(),
    regex: new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}/?$`),
  }));
  return (req, _res, next) => {
    const allowed = [...new Set(patterns.filter((p) => p.regex.test(req.path)).map((p) => p.method))];
    if (allowed.length === 0) return next();
    next(
      new AppError(405, 'METHOD_NOT_ALLOWED', `${req.method} is not supported on ${req.path}; use ${allowed.join(', ')}.`, {
        headers: { Allow: allowed.join(', ') },
      }),
    );
  };
}
