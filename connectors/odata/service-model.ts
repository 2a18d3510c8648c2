import { errorMessage } from '../../src/platform/errors';
import { type CsdlModel, readCsdl } from './csdl';
import type { OdataHttpClient } from './odata-http';

/**
 * The `$metadata` document of a service, read once per HTTP client (one per connection side) and
 * kept while the client lives: `highwater check` and the typed values of reads and writes
 * (`typed-values.ts`) take entity sets and property types from it without another request.
 */
const MODELS = new WeakMap<OdataHttpClient, Promise<CsdlModel>>();

/**
 * The entity sets of the service `http` is on (its service root's `$metadata`, or `url` when
 * given: Business Central publishes it at the API root, not the company's).
 * @throws the client's classified error when the document cannot be read; a failed read is not kept.
 */
export function serviceModel(http: OdataHttpClient, url = '$metadata'): Promise<CsdlModel> {
  let model = MODELS.get(http);
  if (!model) {
    model = http.request({ method: 'GET', url, headers: { Accept: 'application/xml' }, operation: 'read $metadata', retryThrottled: true }).then((r) => readCsdl(r.text));
    MODELS.set(http, model);
    model.catch(() => MODELS.delete(http));
  }
  return model;
}

/** What {@link optionalServiceModel} answers when a service has no usable `$metadata`: no types, so values travel untyped. */
export const NO_MODEL: CsdlModel = new Map();

const WARNED = new WeakSet<OdataHttpClient>();

/** Answers that say a service has no `$metadata` to offer (rather than that it is down or refuses us). */
const NO_DOCUMENT = new Set([400, 404, 405, 406, 415, 501]);

function statusOf(err: unknown): number | undefined {
  const details = err && typeof err === 'object' && 'details' in err ? (err.details as { status?: unknown } | undefined) : undefined;
  return typeof details?.status === 'number' ? details.status : undefined;
}

/**
 * The service's model for typing values, or {@link NO_MODEL} when it has no usable `$metadata`
 * (answered 400/404/405/406/415/501, or a document without entity sets): such a service still
 * syncs, values as the JSON says, with one warning per client naming why; that answer is kept
 * (one read per client, never per message). A service that is down, throttles or refuses the
 * credentials fails the call (and the next one reads again): typing is never dropped for a
 * passing outage.
 * @param url where the document is, relative to the client's root (default `$metadata`).
 * @throws the client's classified error for any other failure.
 */
export async function optionalServiceModel(http: OdataHttpClient, warn?: (message: string) => void, url?: string): Promise<CsdlModel> {
  let model: CsdlModel;
  try {
    model = await serviceModel(http, url);
  } catch (err) {
    const status = statusOf(err);
    if (status === undefined || !NO_DOCUMENT.has(status)) throw err;
    MODELS.set(http, Promise.resolve(NO_MODEL));
    warnOnce(http, warn, http.redact(errorMessage(err)));
    return NO_MODEL;
  }
  if (model.size === 0 && model !== NO_MODEL) warnOnce(http, warn, 'the document names no entity set');
  return model;
}

function warnOnce(http: OdataHttpClient, warn: ((message: string) => void) | undefined, why: string): void {
  if (WARNED.has(http)) return;
  WARNED.add(http);
  warn?.(`${http.label}: $metadata could not be read (${why}); values are read and written without their declared types (Edm.Binary as base64 text, Edm.Int64 keys quoted as text)`);
}
