import { CronExpressionParser } from 'cron-parser';

/**
 * Job schedules: 6-field NCRONTAB (`second minute hour day month weekday`), as Azure Functions
 * timer triggers use them. Pure functions of their inputs; the caller supplies `now`.
 */

const FIELD_COUNT = 6;

/** Why `expr` is not a valid schedule, or undefined when it is. */
export function scheduleProblem(expr: string): string | undefined {
  const fields = expr.trim().split(/\s+/).filter((f) => f.length > 0);
  if (fields.length !== FIELD_COUNT) {
    return `invalid NCRONTAB "${expr}": expected 6 fields (second minute hour day month weekday), got ${fields.length}`;
  }
  try {
    CronExpressionParser.parse(expr, { tz: 'UTC' });
    return undefined;
  } catch (err) {
    return `invalid NCRONTAB "${expr}": ${(err as Error).message}`;
  }
}

/** Why `zone` is not a usable IANA time zone, or undefined when it is. */
export function timeZoneProblem(zone: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return undefined;
  } catch {
    return `unknown time zone "${zone}"`;
  }
}

/** The first occurrence strictly after `after`. */
export function nextOccurrence(expr: string, after: Date, timeZone = 'UTC'): Date {
  return CronExpressionParser.parse(expr, { currentDate: after, tz: timeZone }).next().toDate();
}

/**
 * A job is due when it never ran (`lastCronRun` null) or when an occurrence of its schedule lies
 * in (`lastCronRun`, `now`].
 */
export function isDue(expr: string, lastCronRun: Date | null, now: Date, timeZone = 'UTC'): boolean {
  if (lastCronRun === null) return true;
  if (lastCronRun.getTime() >= now.getTime()) return false;
  return nextOccurrence(expr, lastCronRun, timeZone).getTime() <= now.getTime();
}
