/**
 * Polls `condition` until it holds, for state another process or thread reaches in its own time (a
 * run started, a queue ended); throws naming `what` when `timeoutMs` passes first.
 */
export async function waitUntil(
  condition: () => Promise<boolean> | boolean,
  { timeoutMs = 20_000, everyMs = 25, what = 'the condition' }: { timeoutMs?: number; everyMs?: number; what?: string } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
