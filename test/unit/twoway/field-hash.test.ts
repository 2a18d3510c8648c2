import { fieldHash, normalizedText } from '../../../src/twoway/field-hash';

describe('fieldHash', () => {
  it.each([
    [null, ''],
    [null, undefined],
    [5, '5'],
    [5, '5.00'],
    [5.5, '5.50'],
    ['-0.0', 0],
    [true, 1],
    [false, 0],
    ['2026-12-06 10:00:00', '2026-12-06T10:00:00.000Z'],
    ['2026-12-06T11:00:00+01:00', '2026-12-06T10:00:00Z'],
    ['2026-12-06T10:00:00.123456Z', '2026-12-06 10:00:00.1234560'],
    [{ b: 1, a: [1, 2] }, { a: [1, '2'], b: '1' }],
    [{ $binary: 'AAE=' }, { $binary: 'AAE=' }],
  ])('holds %p and %p equal', (left, right) => {
    expect(fieldHash(left as never)).toBe(fieldHash(right as never));
  });

  it.each([
    ['007', 7],
    ['abc', 'ABC'],
    ['2026-12-06T10:00:00.123456Z', '2026-12-06T10:00:00.123457Z'],
    ['12345678901234567890', '12345678901234567891'],
    [[1, 2], [2, 1]],
    ['', ' '],
    [0, null],
    ['2026-12-06', '2026-12-06T00:00:00Z'],
  ])('tells %p from %p', (left, right) => {
    expect(fieldHash(left as never)).not.toBe(fieldHash(right as never));
  });

  it('keeps big integers and long decimals exact', () => {
    expect(normalizedText('12345678901234567890')).toBe('n:12345678901234567890');
    expect(normalizedText('0.1000000000000000055511151231257827')).toBe('n:0.1000000000000000055511151231257827');
  });
});
