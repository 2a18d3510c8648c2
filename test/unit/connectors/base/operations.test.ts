import { applyOperations } from '../../../../connectors/base/operations';
import type { SourceOperation } from '../../../../src/model/mapping';

const row = { first: 'Ada', last: 'Lovelace', middle: null, n: 3 };
const where = 'field "x"';
const run = (value: unknown, ...ops: SourceOperation[]) => applyOperations(value, ops, row, where);

describe('source operations', () => {
  it('trim, upper and lower work on text, turn other values into text and keep null', () => {
    expect(run('  a b  ', { op: 'trim' })).toBe('a b');
    expect(run('Straße', { op: 'upper' })).toBe('STRASSE');
    expect(run('ÄBC', { op: 'lower' })).toBe('äbc');
    expect(run(42, { op: 'upper' })).toBe('42');
    expect(run(new Date('2026-01-02T03:04:05Z'), { op: 'lower' })).toBe('2026-01-02t03:04:05.000z');
    expect(run(null, { op: 'trim' })).toBeNull();
    expect(run(undefined, { op: 'upper' })).toBeNull();
  });

  it('concat joins the value with row fields, leaves null parts out, and is null when all are null', () => {
    expect(run('Ada', { op: 'concat', fields: ['last'], separator: ' ' })).toBe('Ada Lovelace');
    expect(run('Ada', { op: 'concat', fields: ['middle', 'last'], separator: ' ' })).toBe('Ada Lovelace');
    expect(run('x', { op: 'concat', fields: ['n'] })).toBe('x3');
    expect(run(null, { op: 'concat', fields: ['middle'] })).toBeNull();
    expect(run(null, { op: 'concat', fields: ['first'], separator: '-' })).toBe('Ada');
  });

  it('formatDate reads Dates, ISO and SQL text (no offset = UTC) and epoch ms, and shows them in a zone', () => {
    expect(run('2026-03-04T05:06:07Z', { op: 'formatDate', format: 'yyyy-MM-dd HH:mm' })).toBe('2026-03-04 05:06');
    expect(run('2026-03-04 23:30:00', { op: 'formatDate', format: 'dd.MM.yyyy HH:mm', zone: 'Europe/Berlin' })).toBe('05.03.2026 00:30');
    expect(run('2026-03-04T05:06:07+02:00', { op: 'formatDate', format: 'HH:mm' })).toBe('03:06');
    expect(run(new Date('2026-03-04T05:06:07.891Z'), { op: 'formatDate', format: 'HH:mm:ss.SSS' })).toBe('05:06:07.891');
    expect(run(0, { op: 'formatDate', format: 'yyyy-MM-dd' })).toBe('1970-01-01');
    expect(run(null, { op: 'formatDate', format: 'yyyy' })).toBeNull();
    expect(run('', { op: 'formatDate', format: 'yyyy' })).toBeNull();
  });

  it('formatDate rejects what is not a date, and unknown zones as configuration errors', () => {
    expect(() => run('tomorrow', { op: 'formatDate', format: 'yyyy' })).toThrow(
      expect.objectContaining({ name: 'PermanentError', message: 'field "x": formatDate: "tomorrow" is not a date' }),
    );
    expect(() => run('2026-01-01', { op: 'formatDate', format: 'yyyy', zone: 'Mars/Olympus' })).toThrow(
      expect.objectContaining({ name: 'ConfigError', message: 'field "x": formatDate: unknown time zone "Mars/Olympus"' }),
    );
  });

  it('formatNumber gives fixed decimals for numbers and numeric text', () => {
    expect(run(3.14159, { op: 'formatNumber', decimals: 2 })).toBe('3.14');
    expect(run('2.5', { op: 'formatNumber', decimals: 0 })).toBe('3');
    expect(run(' 7 ', { op: 'formatNumber', decimals: 1 })).toBe('7.0');
    expect(run(BigInt(12), { op: 'formatNumber', decimals: 1 })).toBe('12.0');
    expect(run(-0.125, { op: 'formatNumber', decimals: 3 })).toBe('-0.125');
    expect(run(null, { op: 'formatNumber', decimals: 2 })).toBeNull();
    expect(run('', { op: 'formatNumber', decimals: 2 })).toBeNull();
    expect(() => run('abc', { op: 'formatNumber', decimals: 2 })).toThrow(
      expect.objectContaining({ name: 'PermanentError', message: 'field "x": formatNumber: "abc" is not a number' }),
    );
    expect(() => run(1, { op: 'formatNumber', decimals: -1 })).toThrow(
      expect.objectContaining({ name: 'ConfigError', message: 'field "x": formatNumber: decimals must be an integer from 0 to 100, got -1' }),
    );
  });

  it('default replaces null, undefined and empty text only', () => {
    const op: SourceOperation = { op: 'default', value: 'n/a' };
    expect(run(null, op)).toBe('n/a');
    expect(run(undefined, op)).toBe('n/a');
    expect(run('', op)).toBe('n/a');
    expect(run(' ', op)).toBe(' ');
    expect(run(0, op)).toBe(0);
    expect(run(false, op)).toBe(false);
  });

  it('constant always gives its value', () => {
    expect(run('anything', { op: 'constant', value: 7 })).toBe(7);
    expect(run(null, { op: 'constant', value: null })).toBeNull();
  });

  it('valueMap looks values up as text; unmatched values take the default when given, else stay', () => {
    const map = { '1': 'active', '0': 'inactive', true: 'yes' };
    expect(run(1, { op: 'valueMap', map })).toBe('active');
    expect(run('0', { op: 'valueMap', map })).toBe('inactive');
    expect(run(true, { op: 'valueMap', map })).toBe('yes');
    expect(run(2, { op: 'valueMap', map })).toBe(2);
    expect(run(2, { op: 'valueMap', map, default: 'unknown' })).toBe('unknown');
    expect(run(null, { op: 'valueMap', map, default: null })).toBeNull();
    expect(run(null, { op: 'valueMap', map })).toBeNull();
    expect(run('toString', { op: 'valueMap', map })).toBe('toString');
  });

  it('applies operations in order', () => {
    expect(run('  ada ', { op: 'trim' }, { op: 'upper' }, { op: 'concat', fields: ['last'], separator: '_' })).toBe('ADA_Lovelace');
    expect(run('', { op: 'default', value: 'x' }, { op: 'upper' })).toBe('X');
    expect(run('', { op: 'upper' }, { op: 'default', value: 'x' })).toBe('x');
  });
});
