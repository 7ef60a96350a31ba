import type { RequestHandler } from 'express';
import { problem, PROBLEM_CONTENT_TYPE, toProblem } from '@platform/errors';

export const liveness: RequestHandler = (_req, res) => {
  res.json({ status: 'alive' });
};

/**
 * 200 when the gateway accepts traffic and every dependency answers; otherwise 503 problem+json
 * listing each check, so an operator sees which one failed.
 */
export function readiness(isAccepting: () => boolean, dependencies: Record<string, () => Promise<boolean>>): RequestHandler {
  return (req, res, next) => {
    const run = async () => {
      const checks: Record<string, boolean> = { accepting: isAccepting() };
      for (const [name, check] of Object.entries(dependencies)) checks[name] = await check().catch(() => false);
      return checks;
    };
    run()
      .then((checks) => {
        if (Object.values(checks).every(Boolean)) return res.json({ status: 'ready', checks });
        const detail = checks.accepting ? 'A dependency of the gateway is not reachable.' : 'The gateway is shutting down.';
        const notReady = toProblem(problem('NOT_READY', detail), { instance: req.originalUrl, requestId: String(res.locals.requestId) });
        res
          .status(503)
          .type(PROBLEM_CONTENT_TYPE)
          .send(JSON.stringify({ ...notReady, checks }));
      })
      .catch(next);
  };
}
