import { splitSourceKey } from '../../src/model/source-key';
import type { SqlDialect, SqlParams } from './dialect';

/**
 * The condition selecting the records named by `sourceKeys` (message `sourceKey`s): `k IN (…)`
 * for a single key column, `(k1 IN (…) AND k2 IN (…)) OR …` for a composite key. Each part is
 * bound as text, and under SQLite also as the number it spells exactly (see {@link keyCandidates}).
 * The condition may select more rows than asked for (a looser comparison, several candidates):
 * callers match the rows they read back to the keys by the text detection builds a `sourceKey` from.
 * @param columns the quoted key columns, in `mapping.source.key` order.
 */
export function keyCondition(kind: SqlDialect['kind'], columns: readonly string[], sourceKeys: readonly string[], params: SqlParams): string {
  const bind = (text: string) => keyCandidates(kind, text).map((v) => params.addRaw(v));
  if (columns.length === 1) return `${columns[0]} IN (${sourceKeys.flatMap((key) => bind(splitSourceKey(key)[0] ?? '')).join(', ')})`;
  return sourceKeys
    .map((key) => {
      const parts = splitSourceKey(key);
      return `(${columns.map((column, i) => `${column} IN (${bind(parts[i] ?? '').join(', ')})`).join(' AND ')})`;
    })
    .join(' OR ');
}

/**
 * A key part as bound: text; under SQLite also the number it spells exactly. SQLite compares a
 * text value with a column of no declared type without converting it: an integer-looking key is
 * bound as a number too, so such a column's integer keys are found.
 */
function keyCandidates(kind: SqlDialect['kind'], text: string): unknown[] {
  if (kind !== 'sqlite') return [text];
  if (/^-?\d{1,19}$/.test(text)) {
    const value = BigInt(text);
    if (value >= -(2n ** 63n) && value < 2n ** 63n) return [text, value];
  }
  const number = Number(text);
  return text !== '' && Number.isFinite(number) && String(number) === text ? [text, number] : [text];
}
