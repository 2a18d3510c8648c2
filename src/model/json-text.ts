import { randomUUID } from 'node:crypto';
import { sameDecimal } from './decimal-text';

/**
 * JSON documents whose numbers a JS number cannot hold (an integer beyond ±(2^53 − 1), a decimal
 * with more significant digits than a double keeps, an exponent beyond its range): such a
 * document is carried as its exact text, never through `JSON.parse`, which would round it. In a
 * message it travels as `{"$jsonText": "<text>"}` (`exact-values.ts`); a driver or a request
 * body gets a {@link JsonText}.
 */

/** A JSON document kept as its exact text (see the module comment). */
export class JsonText {
  constructor(readonly text: string) {}

  /** The document's text: what a text column or `String(value)` gets. */
  toString(): string {
    return this.text;
  }

  /** Marked text, which {@link spliceJsonTexts} turns back into the document inside serialized JSON. */
  toJSON(): string {
    return `${MARK}${this.text}`;
  }
}

// A NUL and a per-process random word: no value from a message can carry the mark by chance.
const NONCE = randomUUID().replace(/-/g, '');
const MARK = `\u0000${NONCE}#`;
const MARKED_TEXT = `\\u0000${NONCE}#`;
const MARKED = new RegExp(`"\\\\u0000${NONCE}#(?:[^"\\\\]|\\\\.)*"`, 'g');

/**
 * JSON text (from `JSON.stringify`) with each {@link JsonText} in it written as the document
 * itself, every digit as read: how a request body carries a JSON document exactly. One
 * `includes` when there is none.
 */
export function spliceJsonTexts(json: string): string {
  if (!json.includes(MARKED_TEXT)) return json;
  return json.replace(MARKED, (literal) => (JSON.parse(literal) as string).slice(MARK.length));
}

/**
 * A number literal that may hold more than a double: 16 digits or dots (15 significant digits
 * always survive), or an exponent. Anchored on what precedes a JSON value; may also match inside
 * a string, which only costs the scan below.
 */
const MAYBE_INEXACT = /(?:^|[:,[\s])-?(?:[\d.]{16}|[\d.]+[eE])/;

/**
 * Calls `visit` with the start and end (exclusive) of each number literal of JSON `text` outside
 * its strings, in order, until it returns true. Linear; worth calling only on text a cheap regex
 * test has flagged (as {@link MAYBE_INEXACT} here).
 */
export function scanNumberLiterals(text: string, visit: (start: number, end: number) => boolean): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // A string: skip to its closing quote (a backslash escapes the next character).
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
      i++;
      continue;
    }
    if (c === 45 || (c >= 48 && c <= 57)) {
      const start = i;
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (!((d >= 48 && d <= 57) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45)) break;
      }
      if (visit(start, i)) return;
      continue;
    }
    i++;
  }
}

/** Whether a number literal reads as a JS number of the same value. */
function exactAsNumber(token: string): boolean {
  return (token.length <= 15 && !/[eE]/.test(token)) || sameDecimal(token, Number(token));
}

/** The number literals of JSON `text` that a JS number cannot hold exactly, in order; empty for most documents (one regex test). */
export function inexactNumbers(text: string): string[] {
  const found: string[] = [];
  if (!MAYBE_INEXACT.test(text)) return found;
  scanNumberLiterals(text, (start, end) => {
    const token = text.slice(start, end);
    if (!exactAsNumber(token)) found.push(token);
    return false;
  });
  return found;
}

/**
 * A JSON document read as text (a PostgreSQL `json`/`jsonb` value, a MySQL/MariaDB `JSON`
 * value) as a source row carries it: the parsed value when every number in it is exact as a JS
 * number (nearly always: one regex test more than `JSON.parse`), else a {@link JsonText}.
 * @throws SyntaxError as `JSON.parse` does, for text that is no JSON.
 */
export function jsonDocumentOf(text: string): unknown {
  if (MAYBE_INEXACT.test(text)) {
    let inexact = false;
    scanNumberLiterals(text, (start, end) => (inexact = !exactAsNumber(text.slice(start, end))));
    if (inexact) {
      JSON.parse(text); // still JSON: a document that is none fails as it would have
      return new JsonText(text);
    }
  }
  return JSON.parse(text);
}
