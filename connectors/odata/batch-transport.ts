import { randomUUID } from 'node:crypto';
import type { HighwaterError } from '../../src/platform/errors';
import { malformedAnswer } from '../base/error-classification';
import { boundaryOf, buildBatch, parseBatch } from './batch-multipart';
import { classifyHttpFailure, parseErrorBody, parseRetryAfter } from './odata-errors';
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
 * each operation keeps its own status. Rejects only when every `$batch` request failed as a
 * whole (429, 401, connection lost …); when some of several did, the others' operations get that
 * error as their answer.
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
    const settled = await Promise.allSettled(chunks.map((chunk) => (format === 'json' ? this.json(chunk, what) : this.multipart(chunk, what))));
    if (settled.every((s) => s.status === 'rejected')) throw (settled[0] as PromiseRejectedResult).reason;
    return settled.flatMap((s, i) =>
      s.status === 'fulfilled' ? s.value : chunks[i].map(() => ({ status: 0, headers: {}, body: undefined, error: s.reason as HighwaterError })),
    );
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
    const byId = new Map<string, Record<string, unknown>>();
    for (const r of responses as Array<Record<string, unknown>>) byId.set(String(r.id), r);
    return chunk.map((op, i) => {
      const r = byId.get(String(i + 1));
      if (!r) return this.noAnswer(op);
      const headers = lowerCase(r.headers as Record<string, string> | undefined);
      const text = r.body === undefined ? '' : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
      return this.answer(op, Number(r.status), headers, text, headers['content-type'] ?? 'application/json');
    });
  }

  private async multipart(chunk: readonly BatchOperation[], what: string): Promise<OperationAnswer[]> {
    const root = await this.options.http.serviceRoot();
    const boundary = `batch_${randomUUID()}`;
    const parts = chunk.map((op) => ({ method: op.method, url: this.options.absoluteUrls ? new URL(op.url, root).href : op.url, headers: op.headers, body: op.body }));
    const response = await this.post({ contentType: `multipart/mixed; boundary=${boundary}`, text: buildBatch(boundary, parts, { text: (body) => this.options.http.jsonText(body), type: this.options.http.jsonType }) }, 'multipart/mixed', chunk.length, what);
    const answerBoundary = boundaryOf(response.headers.get('content-type'));
    if (!answerBoundary) throw malformedAnswer(`${what} ($batch): the answer is not multipart`);
    const answers = parseBatch(response.text, answerBoundary);
    return chunk.map((op, i) => {
      const a = answers[i];
      return a ? this.answer(op, a.status, a.headers, a.body, a.headers['content-type'] ?? '') : this.noAnswer(op);
    });
  }

  /** `accept`: a service answers a multipart batch in JSON when asked for JSON (SAP CAP does). */
  private post(rawBody: { contentType: string; text: string }, accept: string, count: number, what: string): Promise<OdataResponse> {
    const headers = { Accept: accept, Prefer: 'odata.continue-on-error' };
    return this.options.http.request({ method: 'POST', url: '$batch', rawBody, headers, operation: `${what}: ${count} operations ($batch)` });
  }

  private answer(op: BatchOperation, status: number, headers: Record<string, string>, text: string, contentType: string): OperationAnswer {
    const body = contentType.includes('json') ? jsonObject(text) : undefined;
    if (status < 400) return { status, headers, body };
    const { message, serviceCode } = parseErrorBody(text, `HTTP ${status}`);
    const retryAfterMs = parseRetryAfter(headers['retry-after'], this.options.http.now());
    const redact = (t: string) => this.options.http.redact(t);
    const error = classifyHttpFailure({ method: op.method, status, message, serviceCode, retryAfterMs }, { operation: `${this.options.http.label}: ${op.operation}`, redact });
    return { status, headers, body, error };
  }

  private noAnswer(op: BatchOperation): OperationAnswer {
    return { status: 0, headers: {}, body: undefined, error: malformedAnswer(`${this.options.http.label}: ${op.operation} ($batch): no answer`) };
  }
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
