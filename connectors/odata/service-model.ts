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

/**
 * The service's model for typing values, or {@link NO_MODEL} when `$metadata` cannot be read: a
 * service without a usable document still syncs (values as the JSON says), with one warning per
 * client naming why. Never throws; the answer is kept (one read per client, never per message).
 * @param url where the document is, relative to the client's root (default `$metadata`).
 */
export function optionalServiceModel(http: OdataHttpClient, warn?: (message: string) => void, url?: string): Promise<CsdlModel> {
  return serviceModel(http, url).catch((err: unknown) => {
    if (!WARNED.has(http)) {
      WARNED.add(http);
      warn?.(`${http.label}: $metadata could not be read (${http.redact(errorMessage(err))}); values are read and written without their declared types (Edm.Binary as base64 text, Edm.Int64 keys quoted as text)`);
    }
    MODELS.set(http, Promise.resolve(NO_MODEL));
    return NO_MODEL;
  });
}
