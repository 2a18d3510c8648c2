import { INT64_MIN, integerOf, JSON_TEXT_TAG, taggedOf } from '../../src/model/exact-values';
import { inexactNumbers } from '../../src/model/json-text';
import type { JsonValue } from '../../src/model/queue-message';
import { bindCommon } from './dialect';
import type { MysqlColumn } from './mysql-columns';
import { fractionBeyond, mysqlDateTimeText } from './mysql-values';
import { type Check, integerProblem, numericProblem, refusingJsonText } from './postgres-exact';

/**
 * Exact values on MariaDB / MySQL. In strict mode the server refuses most values a column cannot
 * hold (out of range, too long, not a date), but some it changes silently: a DECIMAL rounds extra
 * fraction digits (a note, not an error), an integer column rounds a JSON number with a fraction,
 * a DATETIME(n) / TIMESTAMP(n) drops (MariaDB) or rounds (MySQL) fraction digits beyond n. Those
 * are refused here, naming the column (`exactnessError` in postgres-exact.ts words the error).
 * Date-times are written as the server reads them: ISO 8601 with any offset becomes UTC text
 * without one (the session's zone is UTC). A JSON document kept as its exact text (`{"$jsonText":
 * …}`) goes into a text column (MariaDB's JSON is one: LONGTEXT) as it is; MySQL's own JSON type
 * keeps integers of 64 bits (signed or unsigned) but turns other numbers into doubles, so a
 * document with a longer decimal or integer fails there, as in every other column type.
 */

const INTEGER_BITS: Record<string, number> = { tinyint: 8, smallint: 16, mediumint: 24, int: 32, integer: 32, bigint: 64 };
const DECIMAL = /^(?:decimal|numeric)\((\d+)(?:,(\d+))?\)/;
const DATETIME_TYPES = new Set(['datetime', 'timestamp']);
const TEXT_TYPES = new Set(['char', 'varchar', 'tinytext', 'text', 'mediumtext', 'longtext']);
const UINT64_MAX = 2n ** 64n - 1n;

function integerRange(bits: number, unsigned: boolean): readonly [bigint, bigint] {
  return unsigned ? [0n, 2n ** BigInt(bits) - 1n] : [-(2n ** BigInt(bits - 1)), 2n ** BigInt(bits - 1) - 1n];
}

/**
 * The exactness check of a column, for the types where the server would change a value silently,
 * and for a JSON document's exact text in any column but a text one ({@link jsonTextCheck}).
 */
export function mysqlCheckOf(column: MysqlColumn): Check | undefined {
  if (TEXT_TYPES.has(column.dataType)) return undefined;
  if (column.dataType === 'json') return jsonTextCheck;
  return refusingJsonText(valueCheckOf(column), column.columnType, 'JSON or text columns');
}

/**
 * MySQL's JSON column: a document's exact text whose numbers MySQL would store as doubles (beyond
 * 64-bit integers, decimals with more digits than a double) fails; the rest it keeps.
 */
function jsonTextCheck(value: JsonValue): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const tagged = taggedOf(value);
  if (tagged?.tag !== JSON_TEXT_TAG) return undefined;
  for (const token of inexactNumbers(tagged.text)) {
    const integer = integerOf(token);
    if (integer === undefined || integer < INT64_MIN || integer > UINT64_MAX) return `MySQL's JSON type would store ${token} as a double: use a text column (MariaDB's JSON is one)`;
  }
  return undefined;
}

/** The checks of values that are no JSON document, by column type. */
function valueCheckOf(column: MysqlColumn): Check | undefined {
  const bits = INTEGER_BITS[column.dataType];
  if (bits !== undefined) {
    const range = integerRange(bits, column.columnType.includes('unsigned'));
    return (value) => integerProblem(value, range, column.columnType);
  }
  const decimal = DECIMAL.exec(column.columnType);
  if (decimal) {
    const precision = Number(decimal[1]);
    const scale = Number(decimal[2] ?? '0');
    return (value) => numericProblem(value, precision, scale, column.columnType);
  }
  if (DATETIME_TYPES.has(column.dataType)) {
    const digits = column.fractionDigits;
    return (value) => (typeof value === 'string' && fractionBeyond(value, digits) ? `more than ${digits} fraction digits of a second: ${column.columnType} would cut or round it` : undefined);
  }
  return undefined;
}

const CHECKS = new WeakMap<ReadonlyMap<string, MysqlColumn>, ReadonlyMap<string, Check>>();

/** The checks of the columns that need one (built once per columns map). */
export function mysqlChecks(columns: ReadonlyMap<string, MysqlColumn>): ReadonlyMap<string, Check> {
  let checks = CHECKS.get(columns);
  if (!checks) {
    const built = new Map<string, Check>();
    for (const [name, column] of columns) {
      const check = mysqlCheckOf(column);
      if (check) built.set(name, check);
    }
    CHECKS.set(columns, (checks = built));
  }
  return checks;
}

/**
 * A message value as bound for `column`: date-time text for DATETIME / TIMESTAMP columns (text
 * that is no date-time is left for the server to refuse), else as every SQL target binds it.
 */
export function bindForColumn(value: JsonValue | undefined, column: MysqlColumn | undefined): unknown {
  if (typeof value === 'string' && column && DATETIME_TYPES.has(column.dataType)) return mysqlDateTimeText(value) ?? value;
  return bindCommon(value);
}
