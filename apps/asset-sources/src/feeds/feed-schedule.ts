import { FEED_SCHEDULE_TIME_ZONE, type FeedFrequency } from '@contracts/domain';

/** When a scheduled feed runs: `startTime` (hh:mm) and `endDate` (yyyy-mm-dd) are US Eastern wall-clock values. */
export interface FeedSchedule {
  frequency: FeedFrequency;
  startTime: string;
  endDate: string | null;
}

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const HOUR_MS = 3_600_000;

const formatter = new Intl.DateTimeFormat('en-US', {
  timeZone: FEED_SCHEDULE_TIME_ZONE,
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
});

/** The Eastern wall clock at an instant. */
export function easternWallClock(at: Date): WallClock {
  const parts = Object.fromEntries(formatter.formatToParts(at).map((p) => [p.type, p.value]));
  return { year: Number(parts.year), month: Number(parts.month), day: Number(parts.day), hour: Number(parts.hour), minute: Number(parts.minute) };
}

/**
 * The instant an Eastern wall-clock time names. Two candidates: the time read with the offset in force at
 * a first guess, and with the offset in force at that candidate, so a time just after a daylight-saving
 * change gets the offset in force then. Of those the clock shows as asked, the earlier: a time the autumn
 * change repeats (01:30) is its first occurrence. A time the spring change skips (02:30) is shown by
 * neither: it lands an hour later (03:30 EDT), as a clock put forward shows it, never before startTime.
 */
export function easternInstant(year: number, month: number, day: number, hour: number, minute: number): Date {
  const asUtc = Date.UTC(year, month - 1, day, hour, minute);
  const wallAt = (instant: number) => {
    const wall = easternWallClock(new Date(instant));
    return { wall, asUtc: Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute) };
  };
  const first = asUtc - (wallAt(asUtc).asUtc - asUtc);
  const second = asUtc - (wallAt(first).asUtc - first);
  const shownAsAsked = [first, second].filter((instant) => wallAt(instant).asUtc === asUtc);
  return new Date(shownAsAsked.length > 0 ? Math.min(...shownAsAsked) : Math.max(first, second));
}

const parseStartTime = (startTime: string) => {
  const [hour, minute] = startTime.split(':').map(Number);
  return { hour, minute };
};

/** The Eastern calendar day of an instant as yyyy-mm-dd. */
export function easternDate(at: Date): string {
  const wall = easternWallClock(at);
  return `${wall.year}-${String(wall.month).padStart(2, '0')}-${String(wall.day).padStart(2, '0')}`;
}

/** The next startTime (Eastern) on the Eastern day of `from` plus `days`, as an instant. */
function atStartTimeOn(from: Date, days: number, startTime: string): Date {
  const wall = easternWallClock(from);
  const { hour, minute } = parseStartTime(startTime);
  // Calendar arithmetic on the date alone (Date.UTC normalises day overflow), then the Eastern offset of that day.
  const day = new Date(Date.UTC(wall.year, wall.month - 1, wall.day + days));
  return easternInstant(day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate(), hour, minute);
}

const withinEndDate = (run: Date, schedule: FeedSchedule): Date | null => (schedule.endDate !== null && easternDate(run) > schedule.endDate ? null : run);

/**
 * The first run strictly after `now`, or null when it would fall after endDate. HOURLY runs at the
 * startTime's minute of every hour (Eastern offsets are whole hours, so that minute is the same in
 * UTC); DAILY and WEEKLY at startTime, WEEKLY on the weekday of its first run.
 */
export function firstFeedRun(schedule: FeedSchedule, now: Date): Date | null {
  if (schedule.frequency === 'HOURLY') return withinEndDate(nextHourly(schedule, now), schedule);
  let run = atStartTimeOn(now, 0, schedule.startTime);
  if (run.getTime() <= now.getTime()) run = atStartTimeOn(now, 1, schedule.startTime);
  return withinEndDate(run, schedule);
}

/** The run after `previous` that is also after `now` (a run missed while nothing was running is not made up twice). */
export function nextFeedRun(schedule: FeedSchedule, previous: Date, now: Date): Date | null {
  if (schedule.frequency === 'HOURLY') return withinEndDate(nextHourly(schedule, new Date(Math.max(previous.getTime(), now.getTime()))), schedule);
  const step = schedule.frequency === 'DAILY' ? 1 : 7;
  let run = atStartTimeOn(previous, step, schedule.startTime);
  // Whole steps past a long outage, keeping the weekday of a weekly schedule.
  while (run.getTime() <= now.getTime()) run = atStartTimeOn(run, step, schedule.startTime);
  return withinEndDate(run, schedule);
}

function nextHourly(schedule: FeedSchedule, after: Date): Date {
  const { minute } = parseStartTime(schedule.startTime);
  const hourStart = Math.floor(after.getTime() / HOUR_MS) * HOUR_MS;
  let run = hourStart + minute * 60_000;
  if (run <= after.getTime()) run += HOUR_MS;
  return new Date(run);
}
