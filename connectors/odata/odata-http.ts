import { type Clock, systemClock } from '../../src/platform/clock';
import { PermanentError } from '../../src/platform/errors';
import type { AccessTokenProvider } from './odata-auth';
import { ConcurrencyLimit } from '../../src/platform/concurrency-limit';
import { classifyHttpFailure, classifyNetworkError, hasIfMatch, parseErrorBody, parseRetryAfter } from './odata-errors';
import { exactJsonText } from './typed-values';

/** The part of the global `fetch` the connector uses (injected in tests). */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface OdataHttpOptions {
  /** Service root URL, or a function resolving it once (e.g. a Business Central company). A trailing `/` is added. */
  serviceRoot: string | (() => Promise<string>);
  /** Names the connection in error messages, e.g. `odata connection "catalog"`. */
  label: string;
  /** Default: no `Authorization` header. */
  tokens?: AccessTokenProvider;
  /** Default: the global `fetch`. */
  fetch?: FetchLike;
  /** Per-request timeout, ms. Default 60 000. */
  timeoutMs?: number;
  /** Requests in flight at once (`connection.maxConcurrency`). Default 8. */
  maxConcurrency?: number;
  /** A limit shared with other clients of the same connection; replaces `maxConcurrency`. */
  limit?: ConcurrencyLimit;
  /** Retries of a throttled request with `retryThrottled`. Default 3. */
  maxRetries?: number;
  /** Longest wait before such a retry, ms. Default 120 000. */
  maxRetryWaitMs?: number;
  /** Time for `Retry-After` dates, and the waits before retrying a throttled read. Default: the system clock. */
  clock?: Pick<Clock, 'now' | 'sleep'>;
  /** Removes secret values from messages. Default: identity. */
  redact?: (text: string) => string;
  warn?: (message: string) => void;
  /**
   * Ask for and send JSON with `IEEE754Compatible=true` (`Accept`, `Content-Type`): `Edm.Int64`
   * and `Edm.Decimal` as strings both ways, which the service reads and writes exactly. Default
   * false: bodies carry them as JSON numbers with every digit, answers are re-parsed exactly.
   */
  ieee754Compatible?: boolean;
}

export interface OdataRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Relative to the service root, or absolute (a next or delta link), which must be on the service's origin. */
  url: string;
  /** JSON body. */
  body?: unknown;
  /** A body sent as is (e.g. `$batch` multipart), instead of `body`. */
  rawBody?: { contentType: string; text: string };
  headers?: Record<string, string>;
  /** What is being done, for error messages, e.g. `read Books`. */
  operation: string;
  /** Statuses answered instead of thrown (e.g. 404 for "no such record"). Default: none. */
  accept?: readonly number[];
  /**
   * An unsuccessful answer this returns true for is answered instead of thrown (e.g. a Dataverse
   * bulk request on an elastic table that applied part of its records). Default: none.
   */
  acceptFailure?: (status: number, text: string) => boolean;
  /** Wait and retry on 429 / 503, and on any other retryable answer with a `Retry-After`, up to `maxRetries` times (source reads). Default false. */
  retryThrottled?: boolean;
}

export interface OdataResponse {
  status: number;
  /** Absolute URL requested (the base of relative links in the answer). */
  url: string;
  headers: Headers;
  /** The JSON body as an object; undefined when the body is empty or not JSON. */
  body: Record<string, unknown> | undefined;
  text: string;
}

const THROTTLED = new Set([429, 503]);

/**
 * HTTP for one OData connection: OData headers, bearer token, a concurrency limit, timeouts,
 * throttling retries for reads, and errors classified by {@link ODATA_ERROR_RULES}.
 */
export class OdataHttpClient {
  private readonly limit: ConcurrencyLimit;
  private readonly clock: Pick<Clock, 'now' | 'sleep'>;
  private root?: Promise<URL>;

  constructor(private readonly options: OdataHttpOptions) {
    this.limit = options.limit ?? new ConcurrencyLimit(options.maxConcurrency ?? 8);
    this.clock = options.clock ?? systemClock;
  }

  /** The service root, resolved once (a failed resolution is retried next time). */
  serviceRoot(): Promise<URL> {
    if (!this.root) {
      const { serviceRoot } = this.options;
      this.root = (async () => {
        const text = typeof serviceRoot === 'string' ? serviceRoot : await serviceRoot();
        return new URL(text.endsWith('/') ? text : `${text}/`);
      })();
      this.root.catch(() => (this.root = undefined));
    }
    return this.root;
  }

  /** The media type of JSON bodies and answers: `application/json`, with `IEEE754Compatible=true` when negotiated. */
  get jsonType(): string {
    return this.options.ieee754Compatible ? 'application/json;IEEE754Compatible=true' : 'application/json';
  }

  /** A request body's JSON text: exact numbers as digits ({@link exactJsonText}), strings when `IEEE754Compatible`. */
  jsonText(body: unknown): string {
    return exactJsonText(body, this.options.ieee754Compatible);
  }

  /** Names the connection in error messages, e.g. `odata connection "catalog"`. */
  get label(): string {
    return this.options.label;
  }

  /** Removes the connection's secret values from a text (for errors built outside this client). */
  redact(text: string): string {
    return this.options.redact?.(text) ?? text;
  }

  /** A link of an answer (`@odata.nextLink`, `@odata.deltaLink`), absolute, resolved against the answer's context URL. */
  resolveLink(link: string, response: OdataResponse): string {
    const context = response.body?.['@odata.context'];
    const base = new URL(typeof context === 'string' ? context : '', response.url);
    return new URL(link, base).href;
  }

  async request(request: OdataRequest): Promise<OdataResponse> {
    const maxRetries = request.retryThrottled ? (this.options.maxRetries ?? 3) : 0;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.limit.run(() => this.send(request));
      } catch (err) {
        const retryAfterMs = throttledWait(err, attempt);
        const maxWait = this.options.maxRetryWaitMs ?? 120_000;
        if (retryAfterMs === undefined || attempt >= maxRetries || retryAfterMs > maxWait) throw err;
        this.options.warn?.(`${this.options.label}: ${request.operation}: throttled; retrying in ${Math.ceil(retryAfterMs / 1000)} s (${attempt + 1}/${maxRetries})`);
        await this.clock.sleep(retryAfterMs);
      }
    }
  }

  private async send(request: OdataRequest): Promise<OdataResponse> {
    const operation = `${this.options.label}: ${request.operation}`;
    const redact = this.options.redact ?? ((text: string) => text);
    const url = await this.absolute(request.url, operation);
    const headers: Record<string, string> = { Accept: this.jsonType, 'OData-Version': '4.0', 'OData-MaxVersion': '4.0', ...request.headers };
    let body: string | undefined;
    if (request.rawBody) {
      headers['Content-Type'] = request.rawBody.contentType;
      body = request.rawBody.text;
    } else if (request.body !== undefined) {
      headers['Content-Type'] = this.jsonType;
      body = this.jsonText(request.body);
    }
    let response: Response;
    let text: string;
    try {
      if (this.options.tokens) headers.Authorization = `Bearer ${await this.options.tokens.getToken()}`;
      const fetcher = this.options.fetch ?? fetch;
      response = await fetcher(url, { method: request.method, headers, body, signal: AbortSignal.timeout(this.options.timeoutMs ?? 60_000) });
      text = await response.text();
    } catch (err) {
      throw classifyNetworkError(err, { operation, redact });
    }
    if (!response.ok && !request.accept?.includes(response.status) && !request.acceptFailure?.(response.status, text)) {
      const { message, serviceCode } = parseErrorBody(text, response.statusText);
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), this.now());
      const conditional = hasIfMatch(request.headers);
      throw classifyHttpFailure({ method: request.method, status: response.status, message, serviceCode, retryAfterMs, conditional }, { operation, redact });
    }
    return { status: response.status, url, headers: response.headers, body: parseJsonObject(text, response.headers), text };
  }

  private async absolute(url: string, operation: string): Promise<string> {
    const root = await this.serviceRoot();
    const resolved = new URL(url, root);
    // A token must never be sent to a host the configuration did not name.
    if (resolved.origin !== root.origin) throw new PermanentError(`${operation}: refusing a link to another origin (${resolved.origin})`);
    return resolved.href;
  }

  /** The connection's clock. */
  now(): Date {
    return this.clock.now();
  }
}

/**
 * How long to wait before retrying a read the service refused for now: a 429 or 503 after its
 * `Retry-After`, else 1 s, 2 s, 4 s …; any other retryable answer (a 502 from Business Central,
 * a gateway's 504) only when it carries a `Retry-After` (the classified error keeps it only
 * when the answer is transient). Undefined: not retried here.
 */
function throttledWait(err: unknown, attempt: number): number | undefined {
  if (!err || typeof err !== 'object' || !('details' in err)) return undefined;
  const details = err.details as { status?: number } | undefined;
  if (!details?.status) return undefined;
  const retryAfterMs = (err as { retryAfterMs?: number }).retryAfterMs;
  if (THROTTLED.has(details.status)) return retryAfterMs ?? 1000 * 2 ** attempt;
  return retryAfterMs;
}

function parseJsonObject(text: string, headers: Headers): Record<string, unknown> | undefined {
  if (text.trim() === '' || !(headers.get('content-type') ?? '').includes('json')) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
