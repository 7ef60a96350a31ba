import { watchForCancel } from './cancel-watch';

const tick = () => new Promise((r) => setTimeout(r, 15));

describe(watchForCancel.name, () => {
  it('calls onCancel once, at the first look that finds the cancel, and looks no more', async () => {
    const answers = [false, false, true];
    let looks = 0;
    const onCancel = jest.fn();
    const watch = watchForCancel(async () => answers[looks++] ?? true, onCancel, 5);
    while (!watch.requested) await tick();
    await tick();
    await tick();
    expect(onCancel).toHaveBeenCalledTimes(1);
    expect(looks).toBe(3);
    watch.stop();
  });

  it('tries again after a failed look, and stop() ends the looking', async () => {
    let looks = 0;
    const onCancel = jest.fn();
    const watch = watchForCancel(
      async () => {
        looks++;
        if (looks === 1) throw new Error('database away');
        return false;
      },
      onCancel,
      5,
    );
    while (looks < 3) await tick();
    watch.stop();
    const stoppedAt = looks;
    await tick();
    await tick();
    expect(looks).toBeLessThanOrEqual(stoppedAt + 1);
    expect(watch.requested).toBe(false);
    expect(onCancel).not.toHaveBeenCalled();
  });
});
