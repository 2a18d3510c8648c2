import { types } from 'pg';
import { JsonText, jsonDocumentOf } from '../../src/model/json-text';

/** pg's parser of a `text[]` literal: elements unquoted, `NULL` as null, a multi-dimensional array nested. */
const TEXT_ARRAY = 1009 as Parameters<typeof types.getTypeParser>[0]; // pg's type list names no array types
const textArray = types.getTypeParser(TEXT_ARRAY, 'text') as (text: string) => unknown[];

type Elements = Array<unknown>;

/**
 * A PostgreSQL `json[]` / `jsonb[]` value as a source row carries it. Each element is read as a
 * `json`/`jsonb` value is ({@link jsonDocumentOf}): when every element is exact as JS values, the
 * array of them (as pg's own parser gives, a SQL NULL element as null); else the whole array as a
 * {@link JsonText} of a JSON array of the element texts as written — so a message carries one exact
 * document per column, never a mix of values and texts in one array.
 * @throws SyntaxError for an element that is no JSON, as pg's own parser does.
 */
export function jsonArrayOf(text: string): unknown {
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
