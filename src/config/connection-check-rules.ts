import type { DescribedColumn } from '../../connectors/base/entity-describer';
import { parseWatermarkType } from '../model/watermark-value';

/**
 * Whether a column can carry a job's watermark. The declared type decides where it can: SQLite
 * keeps any value in any column (dates are text there, also in an INTEGER column), so a stored
 * value, when the connection can show one, decides for dates.
 */

/** A stored value that reads as a date: ISO 8601 text, as the SQL sources compare them. */
const DATE_TEXT = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}|$)/;

/** One stored value of the column, when the connection can read one (`found`: a non-null value exists). */
export interface ColumnSample {
  found: boolean;
  value?: unknown;
}

function declared(column: DescribedColumn): string {
  return column.type === '' ? 'without a declared type' : column.type;
}

/**
 * Why `column` cannot hold a watermark of `type`, or undefined when it can (or an unknown type:
 * the value is then carried as text).
 * @param sample one stored value; undefined when the connection cannot read one.
 * @param subject the column as messages name it, e.g. `column "updated" of table "accounts"`.
 */
export function watermarkColumnProblem(type: string, column: DescribedColumn, sample: ColumnSample | undefined, subject: string): string | undefined {
  const parsed = parseWatermarkType(type);
  if (!parsed) return undefined;
  if (parsed === 'datetime' || parsed === 'date') {
    if (sample?.found) {
      if (typeof sample.value === 'string' && DATE_TEXT.test(sample.value)) return undefined;
      return `a ${parsed} watermark needs dates: ${subject} (${declared(column)}) holds values that are not ISO 8601 dates`;
    }
    if (['datetime', 'date', 'text', 'other'].includes(column.kind)) return undefined;
    return `a ${parsed} watermark needs dates: ${subject} is ${declared(column)} and holds no dates`;
  }
  if (parsed === 'number') {
    if (['integer', 'decimal', 'float'].includes(column.kind)) return undefined;
    if (column.kind === 'text') return `a number watermark needs a numeric column: ${subject} is ${declared(column)} (text orders "10" before "9")`;
    if (column.kind === 'other' && !(sample?.found && !isNumeric(sample.value))) return undefined;
    return `a number watermark needs a numeric column: ${subject} is ${declared(column)}`;
  }
  if (column.kind === 'binary') return `a string watermark cannot be compared on ${subject} (${declared(column)})`;
  return undefined;
}

function isNumeric(value: unknown): boolean {
  return typeof value === 'number' || typeof value === 'bigint' || (typeof value === 'string' && /^-?\d+(?:\.\d+)?$/.test(value.trim()));
}
