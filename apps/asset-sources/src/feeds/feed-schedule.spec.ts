import { easternDate, easternInstant, firstFeedRun, nextFeedRun } from './feed-schedule';

describe('feed schedule (US Eastern)', () => {
  it('reads startTime as EST in winter and EDT in summer', () => {
    expect(easternInstant(2026, 1, 15, 6, 30).toISOString()).toBe('2026-01-15T11:30:00.000Z');
    expect(easternInstant(2026, 7, 15, 6, 30).toISOString()).toBe('2026-07-15T10:30:00.000Z');
  });

  it('runs daily at startTime across the spring change (08 March 2026)', () => {
    const schedule = { frequency: 'DAILY' as const, startTime: '06:00', endDate: null };
    const first = firstFeedRun(schedule, new Date('2026-03-07T12:00:00Z')) as Date;
    expect(first.toISOString()).toBe('2026-03-08T10:00:00.000Z'); // 06:00 EDT, the day the clocks go forward
    const before = firstFeedRun(schedule, new Date('2026-03-06T12:00:00Z')) as Date;
    expect(before.toISOString()).toBe('2026-03-07T11:00:00.000Z'); // 06:00 EST
    expect((nextFeedRun(schedule, before, before) as Date).toISOString()).toBe('2026-03-08T10:00:00.000Z');
  });

  it('runs a startTime the spring change skips an hour later that day, never before it', () => {
    // 02:30 does not exist on 08 March 2026: the clocks go from 02:00 EST to 03:00 EDT.
    expect(easternInstant(2026, 3, 8, 2, 30).toISOString()).toBe('2026-03-08T07:30:00.000Z'); // 03:30 EDT
    const schedule = { frequency: 'DAILY' as const, startTime: '02:30', endDate: null };
    // Created at 01:45 EST that day: the run of that day is still ahead.
    expect((firstFeedRun(schedule, new Date('2026-03-08T06:45:00Z')) as Date).toISOString()).toBe('2026-03-08T07:30:00.000Z');
    expect((nextFeedRun(schedule, new Date('2026-03-07T07:30:00Z'), new Date('2026-03-07T07:30:00Z')) as Date).toISOString()).toBe('2026-03-08T07:30:00.000Z');
    expect((nextFeedRun(schedule, new Date('2026-03-08T07:30:00Z'), new Date('2026-03-08T07:30:00Z')) as Date).toISOString()).toBe(
      '2026-03-09T06:30:00.000Z', // 02:30 EDT
    );
  });

  it('runs a startTime the autumn change repeats once, at its first occurrence', () => {
    // 01:30 happens twice on 01 November 2026: at 05:30Z (EDT) and 06:30Z (EST).
    expect(easternInstant(2026, 11, 1, 1, 30).toISOString()).toBe('2026-11-01T05:30:00.000Z');
    const schedule = { frequency: 'DAILY' as const, startTime: '01:30', endDate: null };
    const run = nextFeedRun(schedule, new Date('2026-10-31T05:30:00Z'), new Date('2026-10-31T05:30:00Z')) as Date;
    expect(run.toISOString()).toBe('2026-11-01T05:30:00.000Z');
    expect((nextFeedRun(schedule, run, run) as Date).toISOString()).toBe('2026-11-02T06:30:00.000Z');
  });

  it('runs daily at startTime across the autumn change (01 November 2026)', () => {
    const schedule = { frequency: 'DAILY' as const, startTime: '23:15', endDate: null };
    const run = nextFeedRun(schedule, new Date('2026-10-31T03:15:00Z'), new Date('2026-10-31T03:15:00Z')) as Date;
    expect(run.toISOString()).toBe('2026-11-01T03:15:00.000Z'); // 23:15 EDT on 31 October
    expect((nextFeedRun(schedule, run, run) as Date).toISOString()).toBe('2026-11-02T04:15:00.000Z'); // 23:15 EST
  });

  it('takes today when startTime is still ahead, tomorrow when it has passed', () => {
    const schedule = { frequency: 'DAILY' as const, startTime: '09:00', endDate: null };
    expect((firstFeedRun(schedule, new Date('2026-01-15T13:59:00Z')) as Date).toISOString()).toBe('2026-01-15T14:00:00.000Z');
    expect((firstFeedRun(schedule, new Date('2026-01-15T14:00:00Z')) as Date).toISOString()).toBe('2026-01-16T14:00:00.000Z');
  });

  it('runs hourly at the startTime minute', () => {
    const schedule = { frequency: 'HOURLY' as const, startTime: '00:20', endDate: null };
    expect((firstFeedRun(schedule, new Date('2026-01-15T13:25:00Z')) as Date).toISOString()).toBe('2026-01-15T14:20:00.000Z');
    expect((nextFeedRun(schedule, new Date('2026-01-15T14:20:00Z'), new Date('2026-01-15T14:20:01Z')) as Date).toISOString()).toBe('2026-01-15T15:20:00.000Z');
  });

  it('runs weekly on the weekday of the first run, skipping whole weeks after an outage', () => {
    const schedule = { frequency: 'WEEKLY' as const, startTime: '05:00', endDate: null };
    const previous = new Date('2026-01-05T10:00:00Z'); // a Monday, 05:00 EST
    expect((nextFeedRun(schedule, previous, previous) as Date).toISOString()).toBe('2026-01-12T10:00:00.000Z');
    expect((nextFeedRun(schedule, previous, new Date('2026-01-20T00:00:00Z')) as Date).toISOString()).toBe('2026-01-26T10:00:00.000Z');
  });

  it('stops after endDate (an Eastern day)', () => {
    const schedule = { frequency: 'DAILY' as const, startTime: '22:00', endDate: '2026-01-15' };
    const last = firstFeedRun(schedule, new Date('2026-01-15T12:00:00Z')) as Date;
    expect(easternDate(last)).toBe('2026-01-15'); // 03:00 UTC on the 16th is still the 15th in New York
    expect(nextFeedRun(schedule, last, last)).toBeNull();
  });
});
