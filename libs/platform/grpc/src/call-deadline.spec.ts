import { callTimeLeftMs } from './call-deadline';

describe('callTimeLeftMs', () => {
  const now = Date.parse('2026-11-29T12:00:00Z');
  const callWith = (deadline: Date | number) => ({ getDeadline: () => deadline });

  it('counts the ms left until a Date or epoch-ms deadline', () => {
    expect(callTimeLeftMs(callWith(new Date(now + 1_500)), now)).toBe(1_500);
    expect(callTimeLeftMs(callWith(now + 250), now)).toBe(250);
  });

  it('answers 0 for a deadline already past, and undefined for none (grpc-js says Infinity)', () => {
    expect(callTimeLeftMs(callWith(new Date(now - 10)), now)).toBe(0);
    expect(callTimeLeftMs(callWith(Infinity), now)).toBeUndefined();
  });
});
