import { ConfigError, PermanentError } from '../../../src/platform/errors';
import { parseWatermarkType, WatermarkType, WatermarkValue } from '../../../src/model/watermark-value';

/** The error `call` throws; fails the test when it throws nothing. */
function caught(call: () => unknown): Error {
  try {
    call();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a throw');
}

describe('parseWatermarkType', () => {
  it.each([
    ['datetime', 'datetime'], ['  DateTime ', 'datetime'], ['TIMESTAMP', 'datetime'], ['timestamptz', 'datetime'],
    ['datetime2', 'datetime'], ['datetimeoffset', 'datetime'], ['Date', 'date'], ['number', 'number'],
    ['RowVersion', 'number'], ['integer', 'number'], ['bigint', 'number'], ['decimal', 'number'],
    ['string', 'string'], ['NVARCHAR', 'string'], ['text', 'string'],
  ])('%j → %s', (input, expected) => {
    expect(parseWatermarkType(input)).toBe(expected);
  });

  it.each(['', 'guid', 'date time', 'bool', 'constructor', 'toString', '__proto__'])('%j is unknown', (input) => {
    expect(parseWatermarkType(input)).toBeUndefined();
  });
});

describe('WatermarkValue.canonicalize', () => {
  it.each<[WatermarkType, unknown, string]>([
    ['datetime', '2026-01-02T03:04:05Z', '2026-01-02T03:04:05.0000000Z'],
    ['datetime', '2026-01-02T03:04:05.1234567Z', '2026-01-02T03:04:05.1234567Z'],
    ['datetime', '2026-01-02 03:04:05.123456+00', '2026-01-02T03:04:05.1234560Z'],
    ['datetime', '2026-01-02T03:04:05.1+01:00', '2026-01-02T02:04:05.1000000Z'],
    ['datetime', '2026-01-02T03:04:05,5-05', '2026-01-02T08:04:05.5000000Z'],
    ['datetime', '2026-01-02 03:04:05.9999999 +05:30', '2026-01-01T21:34:05.9999999Z'],
    ['datetime', '2026-01-02T00:30:00+01:00', '2026-01-01T23:30:00.0000000Z'],
    ['datetime', '2026-01-02T03:04:05.123456789Z', '2026-01-02T03:04:05.1234567Z'],
    ['datetime', '2026-01-02T03:04:05', '2026-01-02T03:04:05.0000000Z'],
    ['datetime', '2026-01-02 03:04:05', '2026-01-02T03:04:05.0000000Z'],
    ['datetime', ' 2026-01-02 ', '2026-01-02T00:00:00.0000000Z'],
    ['datetime', '0001-01-01T00:00:00Z', '0001-01-01T00:00:00.0000000Z'],
    ['datetime', new Date('2026-01-02T03:04:05.678Z'), '2026-01-02T03:04:05.6780000Z'],
    ['date', '2026-01-02', '2026-01-02'],
    ['date', '2026-01-02T23:30:00-05:00', '2026-01-02'],
    ['date', '2026-01-02 00:00:00', '2026-01-02'],
    ['date', new Date('2026-01-02T23:59:59.999Z'), '2026-01-02'],
    ['number', 42, '42'],
    ['number', -7, '-7'],
    ['number', 1.5, '1.5'],
    ['number', 1e-7, '0.0000001'],
    ['number', 123456789012345678901234567890n, '123456789012345678901234567890'],
    ['number', ' 00042 ', '42'],
    ['number', '+42.500', '42.5'],
    ['number', '-0.0', '0'],
    ['number', '.5', '0.5'],
    ['number', '1.25e3', '1250'],
    ['number', '98765432109876543210987654321', '98765432109876543210987654321'],
    ['number', '0x00000000000007D1', '2001'],
    ['number', Buffer.from([0, 0, 0, 0, 0, 0, 0x07, 0xd1]), '2001'],
    ['number', new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), '18446744073709551615'],
    ['string', 'abc', 'abc'],
    ['string', ' padded ', ' padded '],
    ['string', 12, '12'],
  ])('%s %p → %s', (type, raw, expected) => {
    expect(WatermarkValue.canonicalize(type, raw)).toBe(expected);
  });

  it.each<[WatermarkType, unknown, string]>([
    ['datetime', 'yesterday', '"yesterday" is not a valid datetime watermark value: expected ISO 8601 like 2026-01-02T03:04:05.1234567Z'],
    ['datetime', '2026-02-30T00:00:00Z', '"2026-02-30T00:00:00Z" is not a valid datetime watermark value: you specified 30 (of type number) as a day, which is invalid'],
    ['datetime', '2026-01-02T03:04:05Zjunk', '"2026-01-02T03:04:05Zjunk" is not a valid datetime watermark value: the input "2026-01-02T03:04:05Zjunk" can\'t be parsed as ISO 8601'],
    ['datetime', '2026-01-02T03:04.5Z', '"2026-01-02T03:04.5Z" is not a valid datetime watermark value: a fraction needs seconds'],
    ['datetime', '03:04:05', '"03:04:05" is not a valid datetime watermark value: expected ISO 8601 like 2026-01-02T03:04:05.1234567Z'],
    ['datetime', '2026-W01-1', '"2026-W01-1" is not a valid datetime watermark value: expected ISO 8601 like 2026-01-02T03:04:05.1234567Z'],
    ['datetime', '0001-01-01T00:30:00+01:00', '"0001-01-01T00:30:00+01:00" is not a valid datetime watermark value: year outside 0001–9999'],
    ['datetime', 1767322800000, '1767322800000 is not a valid datetime watermark value: expected an ISO 8601 string or a Date'],
    ['datetime', new Date(NaN), 'Invalid Date is not a valid datetime watermark value: invalid Date'],
    ['datetime', null, 'null is not a valid datetime watermark value: expected an ISO 8601 string or a Date'],
    ['date', 'tomorrow', '"tomorrow" is not a valid date watermark value: expected ISO 8601 like 2026-01-02T03:04:05.1234567Z'],
    ['date', 20260102, '20260102 is not a valid date watermark value: expected a yyyy-MM-dd string or a Date'],
    ['number', 'abc', '"abc" is not a valid number watermark value: not a decimal number'],
    ['number', '', '"" is not a valid number watermark value: not a decimal number'],
    ['number', '1e5000', '"1e5000" is not a valid number watermark value: exponent beyond ±1000'],
    ['number', Number.NaN, 'NaN is not a valid number watermark value: not a finite number'],
    ['number', 2 ** 60, '1152921504606847000 is not a valid number watermark value: beyond Number.MAX_SAFE_INTEGER, precision is lost; read the column as a string or bigint'],
    ['number', new Uint8Array(0), 'bytes 0x is not a valid number watermark value: empty byte array'],
    ['number', undefined, 'undefined is not a valid number watermark value: expected a number, bigint, numeric string or rowversion bytes'],
    ['string', { a: 1 }, 'object is not a valid string watermark value: expected a string or a number'],
    ['string', true, 'true is not a valid string watermark value: expected a string or a number'],
  ])('%s rejects %p', (type, raw, message) => {
    const err = caught(() => WatermarkValue.canonicalize(type, raw));
    expect(err).toBeInstanceOf(PermanentError);
    expect(err.message).toBe(message);
  });
});

describe('WatermarkValue.compare', () => {
  it.each<[WatermarkType, string, string, number]>([
    ['datetime', '2026-01-02T03:04:05.1234567Z', '2026-01-02T03:04:05.1234568Z', -1],
    ['datetime', '2026-01-02 03:04:05.123457+00', '2026-01-02T03:04:05.123456Z', 1],
    ['datetime', '2026-01-02T04:04:05+01:00', '2026-01-02T03:04:05Z', 0],
    ['datetime', '2026-01-02T03:04:05.1Z', '2026-01-02T03:04:05.1000000Z', 0],
    // Later as written, earlier in UTC.
    ['datetime', '2026-01-02T03:04:05+01:00', '2026-01-02T02:30:00Z', -1],
    ['datetime', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59.9999999Z', -1],
    ['date', '2026-01-02', '2026-01-10', -1],
    ['date', '2026-01-02', '2026-01-02T10:00:00Z', 0],
    ['number', '9', '10', -1],
    ['number', '18446744073709551615', '18446744073709551614', 1],
    ['number', '1.5', '1.25', 1],
    ['number', '-1.5', '-1.25', -1],
    ['number', '-0.5', '0', -1],
    ['number', '2.0', '2', 0],
    ['number', '0x10', '16', 0],
    ['string', 'B', 'a', -1],
    ['string', 'a', 'a', 0],
    ['string', 'ab', 'a', 1],
    ['string', '10', '9', -1],
  ])('%s %s vs %s → %i', (type, a, b, expected) => {
    expect(Math.sign(WatermarkValue.compare(type, a, b))).toBe(expected);
    expect(Math.sign(WatermarkValue.compare(type, b, a))).toBe(-expected || 0);
  });
});

describe('WatermarkValue.initialize', () => {
  it.each([
    ['date', null, '0001-01-01'],
    ['datetime', undefined, '0001-01-01T00:00:00.0000000Z'],
    [' DATETIME ', '   ', '0001-01-01T00:00:00.0000000Z'],
    ['number', null, '0'],
    ['string', null, ''],
    ['datetime', '2026-01-02 03:04:05.123456+00', '2026-01-02T03:04:05.1234560Z'],
    ['rowversion', '0x07D1', '2001'],
    ['Date', '2026-01-02', '2026-01-02'],
  ])('type %j stored %j → %j', (type, stored, expected) => {
    const warn = jest.fn();
    const value = WatermarkValue.initialize(type, stored, warn);
    expect(value.value).toBe(expected);
    expect(value.type).toBe(parseWatermarkType(type));
    expect(warn).not.toHaveBeenCalled();
  });

  it.each([
    ['guid', 'ABC-1', 'ABC-1'],
    ['guid', null, null],
    ['guid', '', ''],
  ])('unknown type %j keeps stored %j and warns', (type, stored, expected) => {
    const warn = jest.fn();
    const value = WatermarkValue.initialize(type, stored, warn, 'orders');
    expect(value.type).toBeUndefined();
    expect(value.value).toBe(expected);
    expect(warn.mock.calls).toEqual([['job "orders": unknown watermark type "guid"; keeping the stored value and comparing ordinally']]);
  });

  it.each([
    ['datetime', 'not a date', 'orders', 'job "orders": stored watermark "not a date" is not a valid datetime: expected ISO 8601 like 2026-01-02T03:04:05.1234567Z; run highwater watermark reset orders to rerun from the start, or highwater watermark reset orders --to <value> to set a valid one'],
    ['number', '12abc', 'orders', 'job "orders": stored watermark "12abc" is not a valid number: not a decimal number; run highwater watermark reset orders to rerun from the start, or highwater watermark reset orders --to <value> to set a valid one'],
    ['date', '2026-13-01', undefined, 'stored watermark "2026-13-01" is not a valid date: you specified 13 (of type number) as a month, which is invalid; run highwater watermark reset <job> to rerun from the start, or highwater watermark reset <job> --to <value> to set a valid one'],
  ])('bad stored %s value %j → ConfigError', (type, stored, jobName, message) => {
    const err = caught(() => WatermarkValue.initialize(type, stored, undefined, jobName));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.name).toBe('ConfigError');
    expect(err.message).toBe(message);
  });
});

describe('WatermarkValue.advance', () => {
  it.each<[string, string | null, unknown[], boolean[], string | null]>([
    ['datetime', null, ['2026-01-02T03:04:05Z', '2026-01-01T00:00:00Z', '2026-01-02T03:04:05.0000000Z'], [true, false, false], '2026-01-02T03:04:05.0000000Z'],
    ['datetime', '2026-01-02T03:04:05.123Z', ['2026-01-02 03:04:05.123456+00'], [true], '2026-01-02T03:04:05.1234560Z'],
    ['datetime', '2026-01-02T03:04:05.1234567Z', ['2026-01-02T03:04:05.123Z', new Date('2026-01-02T03:04:05.123Z')], [false, false], '2026-01-02T03:04:05.1234567Z'],
    ['datetime', '2026-01-02T03:04:05Z', ['2026-01-02T04:04:05+02:00', '2026-01-02T04:04:05+00:30'], [false, true], '2026-01-02T03:34:05.0000000Z'],
    ['date', '2026-01-02', ['2026-01-01', '2026-01-03', new Date('2026-01-03T12:00:00Z')], [false, true, false], '2026-01-03'],
    ['number', '10', [9, '10', 11n, Buffer.from([0, 0, 0, 0, 0, 0, 0, 12]), '11.5'], [false, false, true, true, false], '12'],
    ['number', '18446744073709551614', ['18446744073709551615'], [true], '18446744073709551615'],
    ['string', 'b', ['a', 'b', 'c', 'B'], [false, false, true, false], 'c'],
    ['mystery', null, ['b', 'a', 10, new Date('2026-01-02T03:04:05Z')], [true, false, false, false], 'b'],
    ['mystery', '9', ['10'], [false], '9'],
  ])('%s from %j', (type, stored, trackers, moved, final) => {
    const value = WatermarkValue.initialize(type, stored, () => undefined);
    expect(trackers.map((tracker) => value.advance(tracker))).toEqual(moved);
    expect(value.value).toBe(final);
  });

  it.each<[string, unknown, string]>([
    ['datetime', 'garbage', 'change tracker "garbage" is not a valid datetime: expected ISO 8601 like 2026-01-02T03:04:05.1234567Z'],
    ['number', null, 'change tracker null is not a valid number: expected a number, bigint, numeric string or rowversion bytes'],
    ['mystery', { x: 1 }, 'change tracker object is not a valid watermark value: expected a string, number or Date'],
  ])('%s rejects change tracker %p with PermanentError and keeps its value', (type, tracker, message) => {
    const value = WatermarkValue.initialize(type, null, () => undefined);
    const before = value.value;
    const err = caught(() => value.advance(tracker));
    expect(err).toBeInstanceOf(PermanentError);
    expect(err.message).toBe(message);
    expect(value.value).toBe(before);
  });
});
