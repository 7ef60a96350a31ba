import { AppError } from '@platform/errors';
import { createRateLimit } from './rate-limit';

describe(createRateLimit.name, () => {
  it('lets a key spend its budget, then answers 429 with Retry-After', async () => {
    const limit = createRateLimit(3);
    for (let i = 0; i < 3; i++) expect((await limit.consume('k1'))['RateLimit-Remaining']).toBe(String(2 - i));
    const error = (await limit.consume('k1').catch((e) => e)) as AppError;
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(Number(error.headers?.['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(error.headers?.['RateLimit-Remaining']).toBe('0');
  });

  it('keeps a separate budget per key', async () => {
    const limit = createRateLimit(1);
    await limit.consume('a');
    await expect(limit.consume('b')).resolves.toMatchObject({ 'RateLimit-Remaining': '0' });
    await expect(limit.consume('a')).rejects.toMatchObject({ status: 429 });
  });

  it('is off at 0', async () => {
    const limit = createRateLimit(0);
    for (let i = 0; i < 100; i++) await expect(limit.consume('k')).resolves.toEqual({});
  });
});
