import type { Deadline } from '@grpc/grpc-js';

/**
 * How long the caller of a call still waits for its answer, in ms (never below 0), or undefined when it
 * set no deadline. A handler whose work waits on an outside host bounds that wait by it, so the caller
 * gets the handler's own answer ("the host did not answer in time") rather than its deadline's.
 */
export function callTimeLeftMs(call: { getDeadline(): Deadline }, now = Date.now()): number | undefined {
  const deadline = call.getDeadline();
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  if (!Number.isFinite(at)) return undefined;
  return Math.max(0, at - now);
}
