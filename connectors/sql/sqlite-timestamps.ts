import { ConfigError } from '../../src/model/errors';

/**
 * SQLite has no timestamp type; Highwater expects datetime watermark columns to hold ISO 8601
 * UTC text in ONE fixed format per column, e.g. `2026-01-02T03:04:05.123Z` (JS `toISOString`)
 * or `2026-01-02 03:04:05` (SQLite `CURRENT_TIMESTAMP`). Such text orders correctly as text, so
 * the column can be compared (and indexed) as stored; the watermark parameter is written in the
 * column's own format, read off a stored value. Mixed formats in one column do not order
 * correctly (e.g. `…:05Z` sorts after `…:05.1Z`) and are not supported.
 */
export interface TextTimestampFormat {
  separator: 'T' | ' ';
  /** Whether the time has seconds. */
  seconds: boolean;
  fractionDigits: number;
  /** UTC designator as written: `Z`, `+00:00`, `+0000`, `+00` or none. */
  zone: string;
}

const STORED = /^\d{4}-\d{2}-\d{2}([T ])\d{2}:\d{2}(:\d{2})?(?:\.(\d+))?(Z|[+-]\d{2}(?::?\d{2})?)?$/;
const UTC_ZONES = new Set(['', 'Z', '+00:00', '+0000', '+00', '-00:00', '-0000', '-00']);
const CANONICAL = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}):(\d{2})(?:\.(\d+))?Z$/;

/**
 * The format of a stored timestamp text.
 * @param what names the column in the error, e.g. `job "j": watermark field "modified"`.
 * @throws ConfigError when it is not ISO 8601 UTC text.
 */
export function inferTimestampFormat(sample: unknown, what: string): TextTimestampFormat {
  const match = typeof sample === 'string' ? STORED.exec(sample) : null;
  if (!match || !UTC_ZONES.has(match[4] ?? '')) {
    const shown = typeof sample === 'string' ? JSON.stringify(sample) : typeof sample;
    throw new ConfigError(
      `${what}: SQLite datetime watermarks must be ISO 8601 UTC text such as "2026-01-02T03:04:05.123Z", found ${shown}`,
    );
  }
  return { separator: match[1] as 'T' | ' ', seconds: match[2] !== undefined, fractionDigits: (match[3] ?? '').length, zone: match[4] ?? '' };
}

/**
 * A canonical datetime (`yyyy-MM-ddTHH:mm:ss.fffffffZ`) in a stored format. Digits the format
 * does not have are cut off (towards the past), so as a lower bound it may re-read, never skip.
 */
export function formatTimestamp(canonical: string, format: TextTimestampFormat): string {
  const match = CANONICAL.exec(canonical);
  if (!match) throw new ConfigError(`${JSON.stringify(canonical)} is not a canonical datetime watermark`);
  const [, date, hoursMinutes, seconds, fraction = ''] = match;
  let text = `${date}${format.separator}${hoursMinutes}`;
  if (format.seconds) {
    text += `:${seconds}`;
    if (format.fractionDigits > 0) text += `.${fraction.slice(0, format.fractionDigits).padEnd(format.fractionDigits, '0')}`;
  }
  return text + format.zone;
}
