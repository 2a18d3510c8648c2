/**
 * How the answers of a `$batch` are told apart and matched to their requests.
 *
 * A service that does not apply `Prefer: odata.continue-on-error` stops at the first request that
 * fails: Dataverse then answers the `$batch` itself with that request's status (e.g. 400) and a
 * body holding the answers up to and including the failed one; Business Central answers 200 with
 * the answers so far. Either way the requests after the failure never ran, so they get no answer.
 */

/** One answer of a JSON `$batch` (`responses[]`), as the service wrote it. */
export type JsonBatchResponse = Record<string, unknown>;

/**
 * Whether the body of an unsuccessful `$batch` answer still holds answers per request (a
 * multipart body, or JSON with `responses`), rather than one error of the whole request.
 */
export function holdsBatchAnswers(text: string): boolean {
  const body = text.trimStart();
  if (body.startsWith('--')) return true;
  if (!body.startsWith('{')) return false;
  try {
    return Array.isArray((JSON.parse(body) as { responses?: unknown }).responses);
  } catch {
    return false;
  }
}

/**
 * The answer of each of `count` requests (sent with ids `"1"`…`"count"`), in request order;
 * undefined where none came. An answer is matched by its `id`; one whose `id` is null or missing
 * (Business Central writes `"id": null`), or names no request or one already answered, takes the
 * first request not yet answered: the services answer in request order, so by position. No
 * answer is dropped while a request is without one, so a real error is never left unclassified.
 */
export function matchJsonResponses(count: number, responses: readonly JsonBatchResponse[]): Array<JsonBatchResponse | undefined> {
  const matched = new Array<JsonBatchResponse | undefined>(count).fill(undefined);
  const unnamed: JsonBatchResponse[] = [];
  for (const response of responses) {
    const id = response.id;
    if (id === null || id === undefined || id === '') {
      unnamed.push(response);
      continue;
    }
    const index = Number(id) - 1;
    if (Number.isInteger(index) && String(index + 1) === String(id) && index >= 0 && index < count && matched[index] === undefined) matched[index] = response;
    else unnamed.push(response);
  }
  let next = 0;
  for (const response of unnamed) {
    while (next < count && matched[next] !== undefined) next++;
    if (next === count) break;
    matched[next++] = response;
  }
  return matched;
}
