import { readFileSync } from 'node:fs';
import type { FetchLike } from '../../../../connectors/odata/odata-http';

/**
 * One recorded HTTP exchange. Requests are matched in order: method, URL (compared
 * percent-decoded), the headers listed (names lower case; others are not checked) and the body
 * (JSON compared as values; text exactly, with `{{boundary}}` standing for the multipart
 * boundary of the request's content type).
 */
export interface RecordedExchange {
  /** What the exchange shows, for failure messages. */
  note?: string;
  request: { method: string; url: string; headers?: Record<string, string>; body?: unknown };
  response: { status: number; statusText?: string; headers?: Record<string, string>; body?: unknown };
}

export interface ReplayFetch {
  fetch: FetchLike;
  /** Requests as sent, in order. */
  readonly sent: Array<{ method: string; url: string; headers: Record<string, string>; body: string | undefined }>;
  /** Throws when a request did not match or a recorded exchange was not used. */
  assertDone(): void;
}

export function loadExchanges(file: string): RecordedExchange[] {
  return JSON.parse(readFileSync(file, 'utf8')) as RecordedExchange[];
}

/** A `fetch` that answers from recorded exchanges and fails loudly on anything unexpected. */
export function replayFetch(exchanges: readonly RecordedExchange[]): ReplayFetch {
  let next = 0;
  const problems: string[] = [];
  const sent: ReplayFetch['sent'] = [];
  const fetch: FetchLike = async (url, init) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries((init.headers ?? {}) as Record<string, string>)) headers[name.toLowerCase()] = value;
    const body = typeof init.body === 'string' ? init.body : undefined;
    const method = init.method ?? 'GET';
    sent.push({ method, url, headers, body });
    const exchange = exchanges[next++];
    const problem = exchange ? mismatch(exchange, method, url, headers, body) : `unexpected request ${method} ${url}`;
    if (problem) {
      problems.push(problem);
      throw new Error(`replay: ${problem}`);
    }
    const { response } = exchange;
    const text = response.body === undefined ? '' : typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
    const responseHeaders = { ...(response.body !== undefined && typeof response.body !== 'string' ? { 'content-type': 'application/json; odata.metadata=minimal' } : {}), ...response.headers };
    return new Response(response.status === 204 || text === '' ? null : text, { status: response.status, statusText: response.statusText ?? '', headers: responseHeaders });
  };
  return {
    fetch,
    sent,
    assertDone() {
      if (problems.length > 0) throw new Error(`replay mismatches:\n${problems.join('\n')}`);
      if (next < exchanges.length) throw new Error(`replay: ${exchanges.length - next} recorded exchange(s) not requested, next: ${describe(exchanges[next])}`);
    },
  };
}

function mismatch(exchange: RecordedExchange, method: string, url: string, headers: Record<string, string>, body: string | undefined): string | undefined {
  const expected = exchange.request;
  const where = describe(exchange);
  if (expected.method !== method || safeDecode(expected.url) !== safeDecode(url)) return `${where}: got ${method} ${safeDecode(url)}`;
  for (const [name, value] of Object.entries(expected.headers ?? {})) {
    if (headers[name.toLowerCase()] !== value) return `${where}: header ${name} is ${JSON.stringify(headers[name.toLowerCase()])}, expected ${JSON.stringify(value)}`;
  }
  if (expected.body === undefined) return body === undefined ? undefined : `${where}: unexpected body ${body}`;
  if (typeof expected.body === 'string') {
    const boundary = /boundary=([^;]+)/.exec(headers['content-type'] ?? '')?.[1] ?? '';
    const text = expected.body.split('{{boundary}}').join(boundary);
    return text === body ? undefined : `${where}: body differs:\n--- expected\n${text}\n--- got\n${body}`;
  }
  const got = body === undefined ? undefined : (JSON.parse(body) as unknown);
  return JSON.stringify(sortKeys(got)) === JSON.stringify(sortKeys(expected.body)) ? undefined : `${where}: body ${body} expected ${JSON.stringify(expected.body)}`;
}

function describe(exchange: RecordedExchange): string {
  return `${exchange.note ? `[${exchange.note}] ` : ''}${exchange.request.method} ${exchange.request.url}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, sortKeys(v)]));
  return value;
}
