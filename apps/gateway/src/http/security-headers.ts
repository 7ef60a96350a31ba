import type { RequestHandler } from 'express';
import helmet, { HelmetOptions } from 'helmet';

/**
 * Helmet's headers, computed once. With these options every header helmet sets is the same for
 * every request, so the gateway captures them at start-up and sets them in one middleware
 * instead of running helmet's eleven middlewares per request.
 */
export function securityHeaders(options: Readonly<HelmetOptions>): RequestHandler {
  const headers: [string, string][] = [];
  const removed: string[] = [];
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => headers.push([name, String(value)]),
    removeHeader: (name: string) => removed.push(name),
  };
  let completed = false;
  helmet(options)({} as never, recorder as never, (error?: unknown) => {
    if (error) throw error;
    completed = true;
  });
  if (!completed) throw new Error('helmet did not complete synchronously; its headers cannot be precomputed');
  return (_req, res, next) => {
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}
