/**
 * Date-time text between MariaDB / MySQL and messages. The server neither reads nor writes an
 * offset (`DATETIME` has none; `TIMESTAMP` is shown in the session's zone, which Highwater sets
 * to UTC), and keeps at most six fraction digits.
 */

const MYSQL_TEXT = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(\.\d{1,6})?$/;
const ISO_TEXT = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * A date-time as the server writes it in a UTC session (`2026-01-02 03:04:05.123456`) as ISO 8601
 * UTC (`2026-01-02T03:04:05.123456Z`), every fraction digit kept but trailing zeros; undefined for other text
 * (zero dates such as `0000-00-00 00:00:00` are not instants).
 */
export function mysqlTextToIso(text: string): string | undefined {
  const match = MYSQL_TEXT.exec(text);
  if (!match || match[1].startsWith('0000')) return undefined;
  // DATETIME(6) pads its fraction with zeros: shown without them, as PostgreSQL shows its time stamps.
  const fraction = (match[3] ?? '').replace(/\.?0+$/, '');
  return `${match[1]}T${match[2]}${fraction}Z`;
}

/**
 * ISO 8601 or SQL date-time text (an offset, or none for UTC) as the server reads it into a
 * DATETIME / TIMESTAMP column in a UTC session: `YYYY-MM-DD hh:mm:ss[.ffffff]`, shifted to UTC,
 * fraction digits beyond the sixth cut (towards the past, as a watermark bound must be).
 * Undefined for text that is not such a date-time.
 */
export function mysqlDateTimeText(text: string): string | undefined {
  const match = ISO_TEXT.exec(text);
  if (!match) return undefined;
  const [, date, time, fraction = '', zone] = match;
  const digits = fraction.slice(0, 6);
  let base = `${date} ${time}`;
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const [hours, minutes = '0'] = zone.slice(1).includes(':') ? zone.slice(1).split(':') : [zone.slice(1, 3), zone.slice(3) || '0'];
    const ms = Date.parse(`${date}T${time}Z`) - sign * (Number(hours) * 60 + Number(minutes)) * 60_000;
    if (Number.isNaN(ms)) return undefined;
    base = new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
  }
  return digits.length > 0 ? `${base}.${digits}` : base;
}

/** Fraction digits of a date-time text beyond `digits` that are not zero (the column would round them). */
export function fractionBeyond(text: string, digits: number): boolean {
  const match = ISO_TEXT.exec(text);
  const fraction = match?.[3];
  return fraction !== undefined && fraction.length > digits && /[1-9]/.test(fraction.slice(digits));
}
