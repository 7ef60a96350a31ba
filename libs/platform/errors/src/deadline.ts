import { problem } from './app-error';

/**
 * Settles with `work`, or rejects with 504 UPSTREAM_TIMEOUT once `ms` have passed: for a dependency
 * a process calls without gRPC's deadline (the gateway's identity store), so a database that accepts
 * connections and then answers nothing costs a request its budget, never a hang. The work itself goes
 * on and its outcome is dropped.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(problem('UPSTREAM_TIMEOUT', `${what} did not answer within ${ms} ms.`)), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
