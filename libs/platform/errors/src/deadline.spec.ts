import { withDeadline } from './deadline';

describe('withDeadline', () => {
  it('answers what the work answers in time', async () => {
    await expect(withDeadline(Promise.resolve(7), 1000, 'The store')).resolves.toBe(7);
    await expect(withDeadline(Promise.reject(new Error('refused')), 1000, 'The store')).rejects.toThrow('refused');
  });

  it('rejects with 504 UPSTREAM_TIMEOUT when the work does not settle within the budget', async () => {
    const never = new Promise<number>(() => undefined);
    const startedAt = Date.now();
    await expect(withDeadline(never, 50, 'The identity store')).rejects.toMatchObject({
      status: 504,
      code: 'UPSTREAM_TIMEOUT',
      detail: 'The identity store did not answer within 50 ms.',
    });
    expect(Date.now() - startedAt).toBeLessThan(1000);
  });
});
