import { ConsumerSlots } from './consumer.slots';

describe(ConsumerSlots.name, () => {
  it('lets a pull ask only for the slots neither busy nor already asked for', () => {
    const slots = new ConsumerSlots(3);
    expect(slots.pullable()).toBe(3);
    slots.requesting(3);
    expect(slots.pullable()).toBe(0);
    slots.delivered();
    slots.pullEnded(); // two asked for, not delivered: they take no slot
    expect(slots.pullable()).toBe(2);
  });

  it('frees the slot of a handler that waits, and gives it back before anything more is pulled', async () => {
    const slots = new ConsumerSlots(1);
    slots.requesting(1);
    slots.delivered();
    slots.pullEnded();
    expect(slots.pullable()).toBe(0);

    slots.release(); // the handler waits on something outside
    expect(slots.pullable()).toBe(1);
    slots.requesting(1);
    slots.delivered(); // another message took the slot
    slots.pullEnded();

    let back = false;
    const reclaimed = slots.reclaim().then(() => (back = true));
    await Promise.resolve();
    expect(back).toBe(false);
    expect(slots.pullable()).toBe(0);

    slots.release(); // the other message is done: the waiting handler comes first
    await reclaimed;
    expect(back).toBe(true);
    expect(slots.pullable()).toBe(0);
  });

  it('does not hand a returning handler a slot a pull has already asked for', async () => {
    const slots = new ConsumerSlots(1);
    slots.requesting(1);
    let back = false;
    const reclaimed = slots.reclaim().then(() => (back = true));
    await Promise.resolve();
    expect(back).toBe(false);
    slots.pullEnded(); // nothing came: the slot is free for it
    await reclaimed;
    expect(back).toBe(true);
  });

  it('wakes a waiting pull loop when a slot frees', async () => {
    const slots = new ConsumerSlots(1);
    slots.requesting(1);
    slots.delivered();
    slots.pullEnded();
    const woken = slots.changed();
    slots.release();
    await expect(woken).resolves.toBeUndefined();
    expect(slots.pullable()).toBe(1);
  });
});
