import { randomUUID } from 'node:crypto';
import { type HighwaterError, TransientError } from '../../src/platform/errors';
import { malformedAnswer } from '../base/error-classification';
import { holdsBatchAnswers, matchJsonResponses } from './batch-answers';
import { boundaryOf, buildBatch, parseBatch } from './batch-multipart';
import { classifyHttpFailure, hasIfMatch, parseErrorBody, parseRetryAfter } from './odata-errors';
import type { OdataHttpClient, OdataResponse } from './odata-http';

/** How the operations of a group travel: one `$batch` in JSON or multipart format, or single requests. */
export type BatchFormat = 'json' | 'multipart' | 'off';

/** One request of a group. */
export interface BatchOperation {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Relative to the service root (a path such as `Books(ID=1)`). */
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** What it does, for error messages, e.g. `update Books(ID=1)`. */
  operation: string;
}

/** The answer to one operation; `error` is set (classified) when it failed, `status` is 0 when it got no answer of its own. */
export interface OperationAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown> | undefined;
  error?: HighwaterError;
}

export interface BatchTransportOptions {
  http: OdataHttpClient;
  /** Default `off`: single requests, as many at once as the connection's `maxConcurrency` allows. */
  format?: BatchFormat;
  /** Most operations per `$batch`; a larger group goes as several. Default 100 (Business Central's limit). */
  maxOperations?: number;
  /** Multipart parts carry absolute URLs (Dataverse wants them; SAP CAP refuses them). Default false. */
  absoluteUrls?: boolean;
}

// Every error status is answered, not thrown, for single requests: each becomes its operation's answer.
const ANY_ERROR_STATUS = Array.from({ length: 200 }, (_, i) => 400 + i);

/**
 * Sends a group of independent operations and returns one answer per operation, in order.
 * A `$batch` goes with `Prefer: odata.continue-on-error` and no change set (no `Isolation`), so
 * each operation keeps its own status. A service that did not apply the preference stops at the
 * first failed operation (see `batch-answers.ts`): that one gets its error, those after it never
 * ran and get a transient `not run`. Rejects only when every `$batch` request failed as a whole
 * (429, 401, connection lost …); when some of several did, the others' operations get that error
 * as their answer.
 */
export class BatchTransport {
  constructor(private readonly options: BatchTransportOptions) {}

  async send(operations: readonly BatchOperation[], what: string): Promise<OperationAnswer[]> {
    if (operations.length === 0) return [];
    const format = this.options.format ?? 'off';
    if (format === 'off') return Promise.all(operations.map((op) => this.single(op)));
    const size = this.options.maxOperations ?? 100;
    const chunks: BatchOperation[][] = [];
    for (let i = 0; i < operations.length; i += size) chunks.push(operations.slice(i, i + size));
    const settled = await Promise.allSettled(chunks.map((chunk) => this.batch(format, chunk, what)));
    if (settled.every((s) => s.status === 'rejected')) throw (settled[0] as PromiseRejectedResult).reason;
    return settled.flatMap((s, i) =>
      s.status === 'fulfilled' ? s.value : chunks[i].map(() => ({ status: 0, headers: {}, body: undefined, error: s.reason as HighwaterError })),
    );
  }

  /**
   * One `$batch`. Refused as a whole with a 400 or 422 whose body names no request (a plain
   * error, no answers per request): it is the error of the first request (a service that stops
   * at a later failure sends the answers before it) or of the batch itself, so nothing ran; the
   * operations are sent one by one, each then getting its own answer, instead of all getting
   * one request's error.
   */
  private async batch(format: 'json' | 'multipart', chunk: readonly BatchOperation[], what: string): Promise<OperationAnswer[]> {
    try {
      return await (format === 'json' ? this.json(chunk, what) : this.multipart(chunk, what));
    } catch (err) {
      const status = (err as { details?: { status?: unknown } } | undefined)?.details?.status;
      if (chunk.length > 1 && (status === 400 || status === 422)) return Promise.all(chunk.map((op) => this.single(op)));
      throw err;
    }
  }

  /** A failed request (no answer at all) is its operation's answer, so that its neighbours keep theirs. */
  private async single(op: BatchOperation): Promise<OperationAnswer> {
    let response: OdataResponse;
    try {
      response = await this.options.http.request({ method: op.method, url: op.url, body: op.body, headers: op.headers, operation: op.operation, accept: ANY_ERROR_STATUS });
    } catch (err) {
      return { status: 0, headers: {}, body: undefined, error: err as HighwaterError };
    }
    return this.answer(op, response.status, Object.fromEntries(response.headers), response.text, response.headers.get('content-type') ?? '');
  }

  private async json(chunk: readonly BatchOperation[], what: string): Promise<OperationAnswer[]> {
    const requests = chunk.map((op, i) => ({
      id: String(i + 1),
      method: op.method,
      url: op.url,
      headers: { ...(op.body === undefined ? {} : { 'content-type': this.options.http.jsonType }), ...lowerCase(op.headers) },
      ...(op.body === undefined ? {} : { body: op.body }),
    }));
    const response = await this.post({ contentType: 'application/json', text: this.options.http.jsonText({ requests }) }, 'application/json', chunk.length, what);
    const responses = response.body?.responses;
    if (!Array.isArray(responses)) throw malformedAnswer(`${what} ($batch): the answer has no responses`);
    const matched = matchJsonResponses(chunk.length, responses.filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null));
    return this.inOrder(chunk, matched.map((r) => {
      if (!r) return undefined;
      const headers = lowerCase(r.headers as Record<string, string> | undefined);
      const text = r.body === undefined ? '' : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
      return { status: Number(r.status), headers, text, contentType: headers['content-type'] ?? 'application/json' };
    }));
  }

  private async multipart(chunk: readonly BatchOperation[], what: string): Promise<OperationAnswer[]> {
    const root = await this.options.http.serviceRoot();
    const boundary = `batch_${randomUUID()}`;
    const parts = chunk.map((op) => ({ method: op.method, url: this.options.absoluteUrls ? new URL(op.url, root).href : op.url, headers: op.headers, body: op.body }));
    const response = await this.post({ contentType: `multipart/mixed; boundary=${boundary}`, text: buildBatch(boundary, parts, { text: (body) => this.options.http.jsonText(body), type: this.options.http.jsonType }) }, 'multipart/mixed', chunk.length, what);
    const answerBoundary = boundaryOf(response.headers.get('content-type'));
    if (!answerBoundary) throw malformedAnswer(`${what} ($batch): the answer is not multipart`);
    const answers = parseBatch(response.text, answerBoundary);
    return this.inOrder(chunk, chunk.map((_, i) => {
      const a = answers[i];
      return a && { status: a.status, headers: a.headers, text: a.body, contentType: a.headers['content-type'] ?? '' };
    }));
  }

  /**
   * Each operation's answer; one without an answer after a failed one never ran (the service
   * stopped there): transient, so it is retried, never dead-lettered with the failed one's error.
   */
  private inOrder(chunk: readonly BatchOperation[], raw: ReadonlyArray<RawAnswer | undefined>): OperationAnswer[] {
    const stopped = raw.some((a) => a !== undefined && a.status >= 400);
    return chunk.map((op, i) => {
      const a = raw[i];
      if (a) return this.answer(op, a.status, a.headers, a.text, a.contentType);
      return stopped ? this.notRun(op) : this.noAnswer(op);
    });
  }

  /**
   * `accept`: a service answers a multipart batch in JSON when asked for JSON (SAP CAP does).
   * An unsuccessful answer whose body still holds answers per request (a service that stopped
   * at a failed request answers with its status) is read like a successful one.
   */
  private post(rawBody: { contentType: string; text: string }, accept: string, count: number, what: string): Promise<OdataResponse> {
    const headers = { Accept: accept, Prefer: 'odata.continue-on-error' };
    return this.options.http.request({
      method: 'POST', url: '$batch', rawBody, headers, operation: `${what}: ${count} operations ($batch)`, acceptFailure: (_status, text) => holdsBatchAnswers(text),
    });
  }

  private answer(op: BatchOperation, status: number, headers: Record<string, string>, text: string, contentType: string): OperationAnswer {
    const body = contentType.includes('json') ? jsonObject(text) : undefined;
    if (status < 400) return { status, headers, body };
    const { message, serviceCode } = parseErrorBody(text, `HTTP ${status}`);
    const retryAfterMs = parseRetryAfter(headers['retry-after'], this.options.http.now());
    const redact = (t: string) => this.options.http.redact(t);
    const conditional = hasIfMatch(op.headers);
    const error = classifyHttpFailure({ method: op.method, status, message, serviceCode, retryAfterMs, conditional }, { operation: `${this.options.http.label}: ${op.operation}`, redact });
    return { status, headers, body, error };
  }

  private notRun(op: BatchOperation): OperationAnswer {
    const error = new TransientError(`${this.options.http.label}: ${op.operation} ($batch): not run: the service stopped at an earlier request that failed`);
    return { status: 0, headers: {}, body: undefined, error };
  }

  private noAnswer(op: BatchOperation): OperationAnswer {
    return { status: 0, headers: {}, body: undefined, error: malformedAnswer(`${this.options.http.label}: ${op.operation} ($batch): no answer`) };
  }
}

/** An operation's answer as read from a `$batch` body, before classification. */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
  contentType: string;
}

function lowerCase(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = text.trim() === '' ? undefined : JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
