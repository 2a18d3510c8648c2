import { isDue, nextOccurrence, scheduleProblem, timeZoneProblem } from '../../../src/platform/schedule';

const at = (iso: string) => new Date(iso);
const FIELDS = 'expected 6 fields (second minute hour day month weekday)';

describe('scheduleProblem', () => {
  it.each([
    '0 */5 * * * *',
    '0 0 2 * * *',
    '  0 0 2 * * *  ',
    '*/30 * * * * *',
    '0 0 8-18 * * MON-FRI',
    '0 0 0 1 1,7 *',
  ])('accepts %j', (expr) => {
    expect(scheduleProblem(expr)).toBeUndefined();
  });

  it.each([
    ['0 */5 * * *', `invalid NCRONTAB "0 */5 * * *": ${FIELDS}, got 5`],
    ['', `invalid NCRONTAB "": ${FIELDS}, got 0`],
    ['   ', `invalid NCRONTAB "   ": ${FIELDS}, got 0`],
    ['0 0 0 * * * *', `invalid NCRONTAB "0 0 0 * * * *": ${FIELDS}, got 7`],
    ['60 * * * * *', 'invalid NCRONTAB "60 * * * * *": Constraint error, got value 60 expected range 0-59'],
    ['0 60 * * * *', 'invalid NCRONTAB "0 60 * * * *": Constraint error, got value 60 expected range 0-59'],
    ['0 0 24 * * *', 'invalid NCRONTAB "0 0 24 * * *": Constraint error, got value 24 expected range 0-23'],
    ['0 0 0 32 * *', 'invalid NCRONTAB "0 0 0 32 * *": Constraint error, got value 32 expected range 1-31'],
    ['0 0 0 0 * *', 'invalid NCRONTAB "0 0 0 0 * *": Constraint error, got value 0 expected range 1-31'],
    ['0 0 0 * 13 *', 'invalid NCRONTAB "0 0 0 * 13 *": Constraint error, got value 13 expected range 1-12'],
    ['0 0 0 * * 8', 'invalid NCRONTAB "0 0 0 * * 8": Constraint error, got value 8 expected range 0-7'],
    ['0 5-1 * * * *', 'invalid NCRONTAB "0 5-1 * * * *": Invalid range: 5-1, min(5) > max(1)'],
    ['*/0 * * * * *', 'invalid NCRONTAB "*/0 * * * * *": Constraint error, cannot repeat at every 0 time.'],
    ['0 0 0 31 2 *', 'invalid NCRONTAB "0 0 0 31 2 *": Invalid explicit day of month definition'],
    ['a b c d e f', 'invalid NCRONTAB "a b c d e f": Invalid characters, got value: a'],
  ])('rejects %j', (expr, message) => {
    expect(scheduleProblem(expr)).toBe(message);
  });
});

describe('timeZoneProblem', () => {
  it.each(['UTC', 'Europe/Berlin', 'America/New_York'])('accepts %s', (zone) => {
    expect(timeZoneProblem(zone)).toBeUndefined();
  });

  it.each(['Mars/Base', 'Europe/Berlinn'])('rejects %s', (zone) => {
    expect(timeZoneProblem(zone)).toBe(`unknown time zone "${zone}"`);
  });
});

describe('nextOccurrence', () => {
  it.each([
    ['0 */5 * * * *', '2026-01-02T10:03:00Z', 'UTC', '2026-01-02T10:05:00.000Z'],
    ['0 */5 * * * *', '2026-01-02T10:05:00Z', 'UTC', '2026-01-02T10:10:00.000Z'], // strictly after
    ['0 */5 * * * *', '2026-01-02T10:04:59.999Z', 'UTC', '2026-01-02T10:05:00.000Z'],
    ['0 0 2 * * *', '2026-01-15T12:00:00Z', 'Europe/Berlin', '2026-01-16T01:00:00.000Z'], // CET = UTC+1
    ['0 0 2 * * *', '2026-07-15T12:00:00Z', 'Europe/Berlin', '2026-07-16T00:00:00.000Z'], // CEST = UTC+2
    ['0 0 9 * * MON', '2026-01-02T00:00:00Z', 'America/New_York', '2026-01-05T14:00:00.000Z'],
  ])('%s after %s in %s → %s', (expr, after, zone, expected) => {
    expect(nextOccurrence(expr, at(after), zone).toISOString()).toBe(expected);
  });

  it('defaults to UTC', () => {
    expect(nextOccurrence('0 0 2 * * *', at('2026-01-15T12:00:00Z')).toISOString()).toBe('2026-01-16T02:00:00.000Z');
  });
});

describe('isDue', () => {
  const every5 = '0 */5 * * * *';

  it.each<[string, string | null, string, boolean]>([
    ['never ran', null, '2026-01-02T10:03:00Z', true],
    ['never ran, between occurrences', null, '2026-01-02T10:03:17Z', true],
    ['exactly at an occurrence', '2026-01-02T10:01:00Z', '2026-01-02T10:05:00Z', true],
    ['one ms before the occurrence', '2026-01-02T10:01:00Z', '2026-01-02T10:04:59.999Z', false],
    ['last run exactly at the occurrence', '2026-01-02T10:05:00Z', '2026-01-02T10:09:59Z', false],
    ['last run just before the occurrence', '2026-01-02T10:04:59.999Z', '2026-01-02T10:05:00Z', true],
    ['several occurrences missed', '2026-01-01T00:00:00Z', '2026-01-02T10:03:00Z', true],
    ['last run equals now', '2026-01-02T10:05:00Z', '2026-01-02T10:05:00Z', false],
    ['last run in the future', '2026-01-02T11:00:00Z', '2026-01-02T10:05:00Z', false],
    ['last run in the future, far', '2099-01-01T00:00:00Z', '2026-01-02T10:05:00Z', false],
  ])('%s', (_label, last, now, expected) => {
    expect(isDue(every5, last === null ? null : at(last), at(now))).toBe(expected);
  });

  it('reads the schedule in the given time zone', () => {
    const last = at('2026-01-15T00:30:00Z');
    // 02:00 Berlin (CET) is 01:00 UTC; in UTC the job would only be due at 02:00 UTC.
    expect(isDue('0 0 2 * * *', last, at('2026-01-15T01:00:00Z'), 'Europe/Berlin')).toBe(true);
    expect(isDue('0 0 2 * * *', last, at('2026-01-15T01:00:00Z'), 'UTC')).toBe(false);
  });
});
