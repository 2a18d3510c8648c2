/**
 * Groups error messages that differ only in their particulars: GUIDs, timestamps, long hex
 * strings and numbers of four or more digits (ids, durations, ports) become placeholders, so
 * `timeout after 30000 ms (request 7f3c…)` and `timeout after 15000 ms (request 19ab…)` are one
 * group. Short numbers stay: `HTTP 404` and `HTTP 500` are different problems, and so does the
 * error code a connector writes beside its words (`a check constraint failed (23514): …`, see
 * classifyError in connectors/base), which tells an operator what to look up.
 */

const REPLACEMENTS: ReadonlyArray<[RegExp, string]> = [
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<guid>'],
  [/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?/g, '<time>'],
  [/\b(?:0x)?(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<hex>'],
  // A number counts as an error code only as `(<digits>)` closing a reason: followed by `:` or the end.
  [/(?<!\()\b\d{4,}(?:\.\d+)?\b|\b\d{4,}(?:\.\d+)?\b(?!\)(?::|\s*$))/g, '<n>'],
  [/\s+/g, ' '],
];

/** Longest normalised message kept (a group label, not the full text). */
const MAX_LENGTH = 200;

export const NO_ERROR_MESSAGE = '(no error message)';

/**
 * Why a message waits in the ignored queue: the processor skipped it as outdated and wrote no
 * error. The mover's report and the status page's dead-letter view show this same text.
 */
export const OUTDATED_REASON = 'outdated: the target already holds a newer change';

/** @param noError the text for a message that carries no error (default {@link NO_ERROR_MESSAGE}). */
export function normalizeErrorMessage(text: string | undefined, noError = NO_ERROR_MESSAGE): string {
  if (text === undefined || text.trim() === '') return noError;
  const out = REPLACEMENTS.reduce((acc, [pattern, replacement]) => acc.replace(pattern, replacement), text).trim();
  return out.length <= MAX_LENGTH ? out : `${out.slice(0, MAX_LENGTH - 1)}…`;
}
