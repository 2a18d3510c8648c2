import { JsonText, jsonDocumentOf } from '../../src/model/json-text';
import { JSON_TEXT_TAG, taggedOf } from '../../src/model/exact-values';
import type { JsonValue } from '../../src/model/queue-message';

/** pg's type id of `text[]`, whose parser reads a `json[]` literal's element texts. */
export const TEXT_ARRAY_OID = 1009;

/**
 * pg's parser of a `text[]` literal (elements unquoted, `NULL` as null, a multi-dimensional array
 * nested), passed in by the PostgreSQL dialect: this module loads with every SQL target, and pg
 * only with a PostgreSQL connection.
 */
export type TextArrayParser = (text: string) => unknown[];

type Elements = Array<unknown>;

/**
 * A PostgreSQL `json[]` / `jsonb[]` value as a source row carries it. Each element is read as a
 * `json`/`jsonb` value is ({@link jsonDocumentOf}): when every element is exact as JS values, the
 * array of them (as pg's own parser gives, a SQL NULL element as null); else the whole array as a
 * {@link JsonText} of a JSON array of the element texts as written — so a message carries one exact
 * document per column, never a mix of values and texts in one array.
 * @throws SyntaxError for an element that is no JSON, as pg's own parser does.
 */
export function jsonArrayOf(text: string, textArray: TextArrayParser): unknown {
  const texts = textArray(text);
  const elements = documentsOf(texts);
  return holdsJsonText(elements) ? new JsonText(jsonArrayText(texts)) : elements;
}

/** Every element text read as a document; nested arrays (more dimensions) alike. */
function documentsOf(elements: Elements): Elements {
  return elements.map((e) => (Array.isArray(e) ? documentsOf(e) : typeof e === 'string' ? jsonDocumentOf(e) : e));
}

function holdsJsonText(elements: Elements): boolean {
  return elements.some((e) => e instanceof JsonText || (Array.isArray(e) && holdsJsonText(e)));
}

/** JSON array text of the element texts, each as written (a `json` element keeps its spacing), a SQL NULL as `null`. */
function jsonArrayText(texts: Elements): string {
  const parts = texts.map((e) => (Array.isArray(e) ? jsonArrayText(e) : typeof e === 'string' ? e : 'null'));
  return `[${parts.join(', ')}]`;
}

/** Column types (as `format_type` spells them) of arrays of JSON documents. */
export const JSON_ARRAY_TYPES = /^jsonb?\[\]$/;

/**
 * A message value for a `json[]`/`jsonb[]` column as an array literal PostgreSQL reads exactly
 * (`{"{\"a\": 1}","12345678901234567890"}`): a JSON array's elements, each as its JSON text — an
 * exact array text (`$jsonText`) split into its elements' texts as written, so no number passes
 * through a double. A `null` element is written as JSON `null` (JSON cannot tell a SQL NULL one).
 * A JSON array's nested arrays become elements (one dimension). Undefined for any other value
 * (left to PostgreSQL, or refused by {@link jsonArrayProblem}).
 */
function jsonArrayLiteral(value: JsonValue): string | undefined {
  let texts: string[] | undefined;
  if (Array.isArray(value)) texts = value.map((e) => JSON.stringify(e ?? null));
  else if (typeof value === 'object' && value !== null) {
    const tagged = taggedOf(value);
    if (tagged?.tag === JSON_TEXT_TAG) texts = arrayElementTexts(tagged.text);
  }
  return texts && `{${texts.map((t) => `"${t.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
}

/** Why a value cannot go into a `json[]`/`jsonb[]` column exactly: an exact JSON text that is no array; undefined otherwise. */
export function jsonArrayProblem(value: JsonValue): string | undefined {
  const tagged = typeof value === 'object' && value !== null ? taggedOf(value) : undefined;
  if (tagged?.tag !== JSON_TEXT_TAG || arrayElementTexts(tagged.text)) return undefined;
  return 'a JSON document with numbers beyond a double goes into a json[] or jsonb[] column only as a JSON array';
}

/** `record` with its values for `json[]`/`jsonb[]` columns of `types` as array literals; the record itself when it has none. */
export function withJsonArrayLiterals(record: Record<string, JsonValue>, types: ReadonlyMap<string, string>): Record<string, JsonValue> {
  let out: Record<string, JsonValue> | undefined;
  for (const column in record) {
    const type = types.get(column);
    if (type === undefined || !JSON_ARRAY_TYPES.test(type)) continue;
    const literal = jsonArrayLiteral(record[column]);
    if (literal !== undefined) (out ??= { ...record })[column] = literal;
  }
  return out ?? record;
}

/**
 * The texts of the elements of JSON array text, each as written (trimmed); undefined when the
 * text is no JSON array. Scans once, outside strings, splitting at the commas of the top level.
 */
function arrayElementTexts(text: string): string[] | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('[')) return undefined;
  try {
    JSON.parse(trimmed); // JSON at all: its numbers may round here, only its shape is looked at
  } catch {
    return undefined;
  }
  const texts: string[] = [];
  let depth = 0;
  let start = 1;
  for (let i = 0; i < trimmed.length; i++) {
    const c = trimmed[i];
    if (c === '"') {
      for (i++; i < trimmed.length && trimmed[i] !== '"'; i++) if (trimmed[i] === '\\') i++;
    } else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      depth--;
      if (depth === 0) {
        const last = trimmed.slice(start, i).trim();
        if (last !== '' || texts.length > 0) texts.push(last);
      }
    } else if (c === ',' && depth === 1) {
      texts.push(trimmed.slice(start, i).trim());
      start = i + 1;
    }
  }
  return texts;
}
