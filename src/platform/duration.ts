import { Duration } from 'luxon';

/**
 * Durations of `--older-than` and of the rules' `olderThan` / `newerThan`: a sum of
 * `<number><unit>` parts (`ms`, `s`, `m`, `h`, `d`, `w`; e.g. `90s`, `1h30m`, `7d`), or ISO 8601
 * (`PT1H`, `P7D`). A day is 24 hours; months and years are refused (their length varies).
 */

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/gy;

export const DURATION_HINT = 'expected a duration like 30m, 2h, 1h30m, 7d or PT1H';

/** Milliseconds of a duration text, or undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^P/i.test(trimmed)) return isoDuration(trimmed);
  if (trimmed === '') return undefined;
  PART.lastIndex = 0;
  let total = 0;
  let end = 0;
  for (let match = PART.exec(trimmed); match !== null; match = PART.exec(trimmed)) {
    total += Number(match[1]) * UNIT_MS[match[2]];
    end = PART.lastIndex;
  }
  return end === trimmed.length ? Math.round(total) : undefined;
}

function isoDuration(text: string): number | undefined {
  const duration = Duration.fromISO(text.toUpperCase());
  if (!duration.isValid || duration.years !== 0 || duration.quarters !== 0 || duration.months !== 0) return undefined;
  // Weeks and days as fixed lengths (the luxon default for `as`), the same as the short form.
  return Math.round(duration.as('milliseconds'));
}
