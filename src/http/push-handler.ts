import { errorMessage } from '../platform/errors';
import { PushRejection } from '../push/push-reading';
import type { PushService } from '../push/push-service';
import { safeErrorText } from '../bus/message-properties';
import { httpError, type HttpInput, type HttpOutput } from './http-types';

/** Route of the push endpoint below `/api/`: the Functions app's ReceivePush and the local host serve it. */
export const PUSH_ROUTE = 'hooks/{job}';

export interface PushHandlerOptions {
  /** True on the Functions app: the host checked the function key, so no shared secret is asked for. */
  hostAuthenticated: boolean;
}

/**
 * `POST hooks/{job}`: a notification of changes; with `?validationToken=…`, Business Central's
 * subscription handshake, answered 200 with the token as plain text. 202 once its messages are on the bus (and a
 * poll it asks for is stored), with what was sent; 400 naming the parameter that is missing or
 * wrong (its JSON path), or a notification older than the job's `push.maxAgeSeconds`; 401 a
 * wrong secret, client state or organization; 404 an unknown job or one without `push`; 413 a
 * body over 1 MB; 503 when the configuration, the bus or the tables cannot be reached (the
 * sender retries; nothing was accepted). A refused notification changes nothing.
 */
export async function pushHandler(runtime: { push: Pick<PushService, 'receive' | 'handshake'> }, input: HttpInput, options: PushHandlerOptions): Promise<HttpOutput> {
  const job = input.params.job ?? '';
  const request = { body: input.body, headers: input.headers, hostAuthenticated: options.hostAuthenticated, query: input.query };
  try {
    if (input.query.has('validationToken')) return await handshake(runtime, job, request);
    const outcome = await runtime.push.receive(job, request);
    return { status: 202, body: { accepted: true, ...outcome } };
  } catch (err) {
    return failure(err);
  }
}

/**
 * `GET hooks/{job}`: the job's notification contract (parameters and their JSON paths,
 * authentication, limits); with `?validationToken=…`, Business Central's handshake (whichever
 * method it uses).
 */
export async function pushContractHandler(runtime: { push: Pick<PushService, 'contract' | 'handshake'> }, input: HttpInput, options: PushHandlerOptions): Promise<HttpOutput> {
  const job = input.params.job ?? '';
  try {
    if (input.query.has('validationToken')) {
      return await handshake(runtime, job, { body: input.body, headers: input.headers, hostAuthenticated: options.hostAuthenticated, query: input.query });
    }
    return { status: 200, body: await runtime.push.contract(job) };
  } catch (err) {
    return failure(err);
  }
}

/** Business Central's handshake on creating or renewing a subscription: the token back, as text. */
async function handshake(runtime: { push: Pick<PushService, 'handshake'> }, job: string, request: Parameters<PushService['handshake']>[1]): Promise<HttpOutput> {
  return { status: 200, body: await runtime.push.handshake(job, request), headers: { 'content-type': 'text/plain; charset=utf-8' } };
}

function failure(err: unknown): HttpOutput {
  if (err instanceof PushRejection) return httpError(err.status, err.code, err.message);
  return httpError(503, 'PushUnavailable', `the notification was not accepted: ${safeErrorText(errorMessage(err))}`);
}
