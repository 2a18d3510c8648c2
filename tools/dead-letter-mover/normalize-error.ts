/**
 * Groups error messages that differ only in their particulars: GUIDs, timestamps, long hex
 * strings and numbers of four or more digits (ids, durations, ports) become placeholders, so
 * `timeout after 30000 ms (request 7f3c…)` and `timeout after 15000 ms (request 19ab…)` are one
 * group. Short numbers stay: `HTTP 404` and `HTTP 500` are different problems.
 */

const REPLACEMENTS: ReadonlyArray<[RegExp, string]> = [
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<guid>'],
  [/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?/g, '<time>'],
  [/\b(?:0x)?(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<hex>'],
  [/\b\d{4,}(?:\.\d+)?\b/g, '<n>'],
  [/\s+/g, ' '],
];

/** Longest normalised message kept (a group label, not the full text). */
const MAX_LENGTH = 200;

export const NO_ERROR_MESSAGE = '(no error message)';

export function normalizeErrorMessage(text: string | undefined): string {
  if (text === undefined || text.trim() === '') return NO_ERROR_MESSAGE;
  const out = REPLACEMENTS.reduce((acc, [pattern, replacement]) => acc.replace(pattern, replacement), text).trim();
  return out.length <= MAX_LENGTH ? out : `${out.slice(0, MAX_LENGTH - 1)}…`;
}
