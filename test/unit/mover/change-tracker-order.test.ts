import { compareChangeTrackers } from '../../../src/mover/change-tracker-order';

describe('compareChangeTrackers', () => {
  it('compares date-times by instant, whatever the offset or precision', () => {
    expect(compareChangeTrackers('2026-03-01T12:00:00+01:00', '2026-03-01T10:30:00Z')).toBe(1);
    expect(compareChangeTrackers('2026-03-01T10:00:00.0000001Z', '2026-03-01T10:00:00Z')).toBe(1);
    expect(compareChangeTrackers('2026-03-01T10:00:00Z', '2026-03-01T10:00:00.0000000Z')).toBe(0);
  });

  it('compares numbers numerically, not as text', () => {
    expect(compareChangeTrackers('10', '9')).toBe(1);
    expect(compareChangeTrackers('0x00000000000007D1', '2000')).toBe(1);
  });

  it('falls back to ordinal order for anything else, and for mixed kinds', () => {
    expect(compareChangeTrackers('b', 'a')).toBe(1);
    expect(compareChangeTrackers('B', 'a')).toBe(-1); // ordinal: upper case first
    expect(compareChangeTrackers('2026-01-01', 'abc')).toBe(-1);
  });

  it('uses the watermark type of the job when given', () => {
    // As strings "10" < "9"; a string watermark orders them that way on purpose.
    expect(compareChangeTrackers('10', '9', 'string')).toBe(-1);
    expect(compareChangeTrackers('10', '9', ' BigInt ')).toBe(1);
    // A value that does not fit the type falls back to the automatic order.
    expect(compareChangeTrackers('10', '9', 'datetime')).toBe(1);
  });

  it('orders a missing value before any value', () => {
    expect(compareChangeTrackers(undefined, '1')).toBe(-1);
    expect(compareChangeTrackers('1', undefined)).toBe(1);
    expect(compareChangeTrackers(undefined, undefined)).toBe(0);
  });
});
