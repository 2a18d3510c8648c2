import { app, type HttpRequest, type HttpResponseInit } from '@azure/functions';
import { PUSH_ROUTE, pushContractHandler, pushHandler } from '../src/http/push-handler';
import { MAX_PUSH_BODY_BYTES } from '../src/push/push-contract';
import { httpError } from '../src/http/http-types';
import { runtimeOr503, toHttpInput, toHttpResponse } from './support/http-adapter';

/**
 * `POST /api/hooks/{job}` (function key): a pushed notification, turned into the job's queue
 * messages before the 202; `GET` answers the job's contract. The function key is the
 * authentication here (Dataverse sends it as its WebhookKey, Business Central in its
 * notificationUrl); each system's own check (client state, organization) still applies. The
 * logic is `pushHandler`, shared with the local host.
 */
export async function receivePush(request: HttpRequest): Promise<HttpResponseInit> {
  // The host takes bodies up to 100 MB: refuse a large one before reading it all.
  const length = Number(request.headers.get('content-length') ?? '0');
  if (length > MAX_PUSH_BODY_BYTES) return toHttpResponse(httpError(413, 'PayloadTooLarge', `body: over ${MAX_PUSH_BODY_BYTES} bytes`));
  const got = await runtimeOr503();
  if ('response' in got) return got.response;
  const input = await toHttpInput(request);
  if (request.method === 'GET') return toHttpResponse(await pushContractHandler(got.runtime, input, { hostAuthenticated: true }));
  return toHttpResponse(await pushHandler(got.runtime, input, { hostAuthenticated: true }));
}

app.http('ReceivePush', { methods: ['GET', 'POST'], route: PUSH_ROUTE, authLevel: 'function', handler: receivePush });
