import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { safeErrorText } from '../../src/bus/message-properties';
import { httpError, type HttpInput, type HttpOutput } from '../../src/http/http-types';
import { errorMessage } from '../../src/platform/errors';
import type { Runtime } from '../../src/runtime/runtime';
import { getRuntime } from '../runtime-instance';

/** The host-independent request of a Functions `HttpRequest`. */
export async function toHttpInput(request: HttpRequest): Promise<HttpInput> {
  const headers: Record<string, string | undefined> = {};
  request.headers.forEach((value, name) => {
    headers[name.toLowerCase()] = value;
  });
  return {
    method: request.method,
    params: { ...request.params },
    query: new URLSearchParams(request.query),
    body: await request.text(),
    headers,
    url: request.url,
  };
}

/** Objects become JSON bodies; strings are sent as they are. */
export function toHttpResponse(output: HttpOutput): HttpResponseInit {
  const response: HttpResponseInit = { status: output.status };
  if (output.headers) response.headers = output.headers;
  if (typeof output.body === 'string') response.body = output.body;
  else if (output.body !== undefined) response.jsonBody = output.body;
  return response;
}

/**
 * The shared runtime, or a 503 answer when it cannot be created (storage or bus unreachable,
 * bad settings); the next request tries again.
 */
export async function runtimeOr503(): Promise<{ runtime: Runtime } | { response: HttpResponseInit }> {
  try {
    return { runtime: await getRuntime() };
  } catch (err) {
    return { response: toHttpResponse(httpError(503, 'RuntimeUnavailable', safeErrorText(errorMessage(err)))) };
  }
}
