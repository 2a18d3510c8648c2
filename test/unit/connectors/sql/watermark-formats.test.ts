import { decodeCursor, encodeCursor, lookbackLowerBound } from '../../../../connectors/sql/change-window';
import { normalizePostgresTimestamp, postgresDialect } from '../../../../connectors/sql/postgres-dialect';
import { sqliteDialect } from '../../../../connectors/sql/sqlite-dialect';
import { formatTimestamp, inferTimestampFormat } from '../../../../connectors/sql/sqlite-timestamps';

const canonical = '2026-01-02T03:04:05.1234567Z';

describe('SQLite timestamp text', () => {
  it.each([
    ['2025-12-31T23:59:59.999Z', '2026-01-02T03:04:05.123Z'],
    ['2025-12-31 23:59:59', '2026-01-02 03:04:05'],
    ['2025-12-31T23:59:59.123456+00:00', '2026-01-02T03:04:05.123456+00:00'],
    ['2025-12-31 23:59', '2026-01-02 03:04'],
  ])('writes the watermark like the stored %s', (sample, expected) => {
    expect(formatTimestamp(canonical, inferTimestampFormat(sample, 'w'))).toBe(expected);
    expect(sqliteDialect.watermarkParameter('datetime', canonical, sample, 'w')).toBe(expected);
  });

  it('rejects columns that do not hold ISO 8601 UTC text', () => {
    for (const sample of ['2026-01-02T03:04:05+02:00', '02.01.2026', 1767322245]) {
      expect(() => inferTimestampFormat(sample, 'job "j": watermark field "modified"')).toThrow(
        `job "j": watermark field "modified": SQLite datetime watermarks must be ISO 8601 UTC text such as "2026-01-02T03:04:05.123Z", found ${typeof sample === 'string' ? JSON.stringify(sample) : 'number'}`,
      );
    }
  });

  it('binds numbers as numbers, big integers as bigint, other types as text', () => {
    expect(sqliteDialect.watermarkParameter('number', '42', 1, 'w')).toBe(42);
    expect(sqliteDialect.watermarkParameter('number', '1.5', 1, 'w')).toBe(1.5);
    expect(sqliteDialect.watermarkParameter('number', '9007199254740993', 1, 'w')).toBe(BigInt('9007199254740993'));
    expect(sqliteDialect.watermarkParameter('date', '2026-01-02', '2026-01-01', 'w')).toBe('2026-01-02');
  });
});

describe('PostgreSQL timestamps', () => {
  it('reads session-UTC timestamp text as ISO UTC with microseconds', () => {
    expect(normalizePostgresTimestamp('2026-01-02 03:04:05.123456+00')).toBe('2026-01-02T03:04:05.123456Z');
    expect(normalizePostgresTimestamp('2026-01-02 03:04:05')).toBe('2026-01-02T03:04:05Z');
    expect(normalizePostgresTimestamp('infinity')).toBe('infinity');
  });

  it('cuts a 7th fraction digit off the watermark parameter', () => {
    expect(postgresDialect().watermarkParameter('datetime', canonical, null, 'w')).toBe('2026-01-02T03:04:05.123456Z');
    expect(postgresDialect().watermarkParameter('number', '12.5', null, 'w')).toBe('12.5');
  });
});

describe('lookbackLowerBound', () => {
  it('moves datetimes back by seconds keeping the fraction, dates by whole days, other types not at all', () => {
    expect(lookbackLowerBound('datetime', canonical, 90)).toBe('2026-01-02T03:02:35.1234567Z');
    expect(lookbackLowerBound('datetime', canonical, 0)).toBe(canonical);
    expect(lookbackLowerBound('datetime', '0001-01-01T00:00:10.0000000Z', 60)).toBe('0001-01-01T00:00:00.0000000Z');
    expect(lookbackLowerBound('date', '2026-03-01', 3600)).toBe('2026-02-28');
    expect(lookbackLowerBound('number', '100', 3600)).toBe('100');
  });
});

describe('paging cursor', () => {
  it('round-trips a run position and rejects foreign cursors', () => {
    const position = { upper: '2026-01-01T00:00:00Z', after: { watermark: 5, keys: ['a', 1] } };
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
    expect(decodeCursor(encodeCursor({ upper: 3 }))).toEqual({ upper: 3 });
    expect(() => decodeCursor('not-a-cursor')).toThrow(expect.objectContaining({ name: 'PermanentError', message: 'invalid paging cursor' }));
  });
});
