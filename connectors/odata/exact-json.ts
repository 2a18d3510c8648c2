import { randomUUID } from 'node:crypto';
import { sameDecimal } from '../../src/model/exact-values';
import { JsonText, scanNumberLiterals } from '../../src/model/json-text';

/**
 * A value starting with 16 digits or dots: the only text in which a JSON number can hold more
 * than a double keeps (15 significant digits always survive). Anchored on what precedes a value
 * (`:`, `,`, `[`, white space), which also makes the test about a third faster than `\d{16}`.
 */
const LONG_NUMBER = /[:,[\s]-?[\d.]{16}/;

/**
 * JSON text parsed with every number a double cannot hold exactly (an `Edm.Int64` beyond 2^53, an
 * `Edm.Decimal` with more than 15–17 significant digits) as a string of its exact digits, which is
 * how the message contract carries such values (`src/model/exact-values.ts`). A service that
 * honours `IEEE754Compatible=true` writes them as strings itself; most write bare numbers, which
 * `JSON.parse` would round.
 *
 * Costs one native regex test per answer (about half a `JSON.parse` of it): only an answer with
 * such a value (rare: GUIDs, dates and ordinary numbers are none) is scanned, once, outside its strings.
 * @returns undefined when `text` has no such number (the caller keeps its own parse).
 * @throws SyntaxError as `JSON.parse` does.
 */
export function parseExactJson(text: string): unknown {
  const quoted = quoteLongNumbers(text, '');
  return quoted === undefined ? undefined : JSON.parse(quoted);
}

// A NUL and a per-process random word: no string of an answer can carry the mark by chance.
const NONCE = randomUUID().replace(/-/g, '');
const MARK = `\u0000${NONCE}!`;
const MARK_IN_JSON = `\\u0000${NONCE}!`; // as JSON text writes it: a NUL cannot stand bare in a string
const MARKED = new RegExp(`"\\\\u0000${NONCE}!(-?[0-9][0-9.eE+-]*)"`, 'g');

/**
 * The `value` array of a collection answer's JSON text, numbers a double cannot hold exactly kept
 * by where they stand in each record: a property's own value becomes the string of its digits (an
 * `Edm.Int64`, an `Edm.Decimal`: how the contract carries them), or a {@link JsonText} of the
 * number when `types` (the set's `$metadata`) says the property takes any JSON (`Edm.Untyped`, an
 * open-type property it does not describe); a complex or collection value holding such a number
 * becomes a {@link JsonText} of the value written again with every digit — a string there would
 * change the document. Values without such numbers are as `JSON.parse` gives them.
 * @returns undefined when `text` has no such number (the caller keeps its own parse), or no `value` array.
 * @throws SyntaxError as `JSON.parse` does.
 */
export function parseExactRows(text: string, types?: ReadonlyMap<string, string>): unknown[] | undefined {
  const quoted = quoteLongNumbers(text, MARK_IN_JSON);
  if (quoted === undefined) return undefined;
  const value = (JSON.parse(quoted) as { value?: unknown } | null)?.value;
  if (!Array.isArray(value)) return undefined;
  return value.map((row) => (typeof row === 'object' && row !== null && !Array.isArray(row) ? exactRow(row as Record<string, unknown>, types) : row));
}

/** A record with each marked number placed by {@link parseExactRows}'s rule. */
function exactRow(row: Record<string, unknown>, types: ReadonlyMap<string, string> | undefined): Record<string, unknown> {
  for (const key in row) {
    const value = row[key];
    if (typeof value === 'string' && value.startsWith(MARK)) {
      const digits = value.slice(MARK.length);
      row[key] = takesAnyJson(key, types) ? new JsonText(digits) : digits;
    } else if (typeof value === 'object' && value !== null && holdsMark(value)) {
      row[key] = new JsonText(JSON.stringify(value).replace(MARKED, '$1'));
    }
  }
  return row;
}

/**
 * Whether the types say property `key` takes any JSON: `Edm.Untyped` only. A property they do not
 * describe may be an open type's, or a typed column a partial map leaves out (Dataverse's decimals):
 * its bare number stays digits, as for the typed scalar it most often is.
 */
function takesAnyJson(key: string, types: ReadonlyMap<string, string> | undefined): boolean {
  return types?.get(key) === 'Edm.Untyped';
}

/** Whether a parsed value holds a marked number anywhere in it. */
function holdsMark(value: unknown): boolean {
  if (typeof value === 'string') return value.startsWith(MARK);
  if (typeof value !== 'object' || value === null) return false;
  return (Array.isArray(value) ? value : Object.values(value)).some(holdsMark);
}

/**
 * JSON text with each number a double cannot hold written as a string of `mark` (JSON string text) and its digits;
 * undefined when there is none (one regex test for most answers; `JSON.parse` of the text stands).
 */
function quoteLongNumbers(text: string, mark: string): string | undefined {
  if (!LONG_NUMBER.test(text)) return undefined;
  let out = '';
  let copied = 0;
  scanNumberLiterals(text, (start, end) => {
    const token = text.slice(start, end);
    if (token.length > 15 && !sameDecimal(token, Number(token))) {
      out += `${text.slice(copied, start)}"${mark}${token}"`;
      copied = end;
    }
    return false;
  });
  return copied === 0 ? undefined : out + text.slice(copied);
}
