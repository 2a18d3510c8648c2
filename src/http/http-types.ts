/**
 * HTTP handlers independent of the hosting: the Functions app adapts `HttpRequest` to these, the
 * local host adapts node's `http` server. Same routes, same answers.
 */
export interface HttpInput {
  method: string;
  /** Route parameters, e.g. `{ name }` for `jobs/{name}/execute`. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** Raw body text ('' when none). */
  body: string;
  headers: Record<string, string | undefined>;
  /** The full request URL when the host knows it (the Functions app); used to build status URLs. */
  url?: string;
}

export interface HttpOutput {
  status: number;
  /** Objects are sent as JSON; strings as they are (set `content-type`). */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface HttpRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path below `/api/` in Functions style, e.g. `jobs/{name}/execute`; '' and `/`-rooted paths are host-only (status page). */
  route: string;
  handler(input: HttpInput): Promise<HttpOutput>;
}

/** A JSON error body: `{ error: { code, message } }`. */
export function httpError(status: number, code: string, message: string): HttpOutput {
  return { status, body: { error: { code, message } } };
}
