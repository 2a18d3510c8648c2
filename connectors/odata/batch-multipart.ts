import { malformedAnswer } from '../base/error-classification';

/** One request of a `$batch`. */
export interface BatchPart {
  method: 'GET' | 'PATCH' | 'POST' | 'DELETE';
  /** Absolute, or relative to the service root (services differ: Dataverse takes absolute URLs, SAP CAP only relative ones). */
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/** One answer of a `$batch`, in request order. */
export interface BatchAnswer {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  /** The answer's body text ('' when none). */
  body: string;
}

/**
 * A `multipart/mixed` OData batch body of independent requests (no change set: one failing
 * request does not roll back the others), CRLF line ends as the format requires. `json`: how
 * bodies are written (default `JSON.stringify`, `application/json`).
 */
export function buildBatch(boundary: string, parts: readonly BatchPart[], json: { text: (body: unknown) => string; type: string } = { text: JSON.stringify, type: 'application/json' }): string {
  const lines: string[] = [];
  parts.forEach((part, i) => {
    lines.push(`--${boundary}`, 'Content-Type: application/http', 'Content-Transfer-Encoding: binary', `Content-ID: ${i + 1}`, '');
    lines.push(`${part.method} ${part.url} HTTP/1.1`);
    for (const [name, value] of Object.entries(part.headers ?? {})) lines.push(`${name}: ${value}`);
    if (part.body !== undefined) lines.push(`Content-Type: ${json.type}; type=entry`, '', json.text(part.body));
    else lines.push('');
  });
  lines.push(`--${boundary}--`, '');
  return lines.join('\r\n');
}

/** The boundary of a `multipart/mixed` content type. */
export function boundaryOf(contentType: string | null): string | undefined {
  const match = /boundary=("?)([^";]+)\1/i.exec(contentType ?? '');
  return match?.[2];
}

/**
 * The answers of a `$batch` response body, in order. Answers inside a change set are flattened.
 * @throws TransientError ({@link malformedAnswer}) when the body is not a multipart batch answer.
 */
export function parseBatch(body: string, boundary: string): BatchAnswer[] {
  const answers: BatchAnswer[] = [];
  const sections = body.split(`--${boundary}`).slice(1);
  for (const section of sections) {
    if (section.startsWith('--')) break;
    const { headers, rest } = splitHeaders(section.replace(/^\r?\n/, ''));
    const nested = boundaryOf(headers['content-type'] ?? null);
    if (nested && (headers['content-type'] ?? '').startsWith('multipart/mixed')) {
      answers.push(...parseBatch(rest, nested));
      continue;
    }
    const http = /^HTTP\/1\.1 (\d{3}) ?([^\r\n]*)\r?\n/.exec(rest);
    if (!http) throw malformedAnswer('$batch: an answer part has no HTTP status line');
    const inner = splitHeaders(rest.slice(http[0].length));
    answers.push({ status: Number(http[1]), statusText: http[2], headers: inner.headers, body: inner.rest.replace(/\r?\n$/, '').trim() });
  }
  return answers;
}

/** Header lines up to the first blank line (names lower-cased), and what follows. */
function splitHeaders(text: string): { headers: Record<string, string>; rest: string } {
  const headers: Record<string, string> = {};
  const end = /\r?\n\r?\n/.exec(text);
  const head = end ? text.slice(0, end.index) : text;
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, rest: end ? text.slice(end.index + end[0].length) : '' };
}
