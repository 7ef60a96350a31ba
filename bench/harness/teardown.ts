export type TeardownStep = () => Promise<unknown>;
/** Registers clean-up; steps run last-registered first. */
export type Defer = (label: string, step: TeardownStep) => void;

/**
 * Runs `body` and then every deferred step, whether `body` succeeded, threw, or the run was
 * interrupted (Ctrl-C, SIGTERM): a benchmark must never leave processes or schemas behind.
 */
export async function withTeardown(body: (defer: Defer) => Promise<void>): Promise<void> {
  const steps: { label: string; step: TeardownStep }[] = [];
  let teardown: Promise<void> | undefined;
  const runSteps = () =>
    (teardown ??= (async () => {
      for (const { label, step } of steps.reverse()) {
        try {
          await step();
        } catch (error) {
          // Keep going: one failed step must not strand what the later steps would clean up.
          console.error(`teardown "${label}" failed:`, error);
          process.exitCode = 1;
        }
      }
    })());
  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`${signal} received, cleaning up`);
    void runSteps().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await body((label, step) => steps.push({ label, step }));
  } finally {
    await runSteps();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
