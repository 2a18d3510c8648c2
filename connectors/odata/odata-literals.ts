import { ConfigError, PermanentError } from '../../src/platform/errors';
import type { WatermarkType } from '../../src/model/watermark-value';
import { BYTES_TAG, taggedOf } from '../../src/model/exact-values';
import { ExactNumber } from './typed-values';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const QUALIFIED = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATETIME_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,12})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A property, entity set or parameter name, checked: only plain OData identifiers reach a URL,
 * so configuration cannot inject path segments or query options.
 * @param what names the configuration property in the error, e.g. `mapping "m": source.entity`.
 */
export function identifier(name: string, what: string): string {
  if (typeof name !== 'string' || !IDENTIFIER.test(name)) {
    throw new ConfigError(`${what}: ${JSON.stringify(name)} is not an OData identifier (letters, digits and _, not starting with a digit)`);
  }
  return name;
}

/** A namespace-qualified name such as `Microsoft.NAV.post`, checked like {@link identifier}. */
export function qualifiedName(name: string, what: string): string {
  if (typeof name !== 'string' || !QUALIFIED.test(name)) {
    throw new ConfigError(`${what}: ${JSON.stringify(name)} is not an OData name (identifiers joined by dots)`);
  }
  return name;
}

export function isGuid(value: unknown): value is string {
  return typeof value === 'string' && GUID.test(value);
}

/** `'text'` with single quotes doubled. */
export function quoteString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * A value as an OData literal (for `$filter` and keys): numbers and booleans bare, `null`, and
 * strings quoted — except strings shaped like a GUID or an ISO 8601 date-time with offset, which
 * OData writes bare (`Edm.Guid`, `Edm.DateTimeOffset`). Date → date-time; bytes (a Buffer or a
 * message's `{"$binary": …}`) → `binary'<base64url>'` (`Edm.Binary`); an {@link ExactNumber} (a
 * digit string typed `Edm.Int64`/`Edm.Decimal` by the service's `$metadata`) → its digits, bare.
 * @throws PermanentError for values that have no literal (objects, arrays, NaN).
 */
export function literal(value: unknown, what: string): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new PermanentError(`${what}: ${value} has no OData literal`);
    return String(value);
  }
  if (value instanceof Date) return value.toISOString();
  if (value instanceof ExactNumber) return value.text;
  if (typeof value === 'string') return isGuid(value) || DATETIME_OFFSET.test(value) ? value : quoteString(value);
  if (value instanceof Uint8Array) return `binary'${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64url')}'`;
  const tagged = taggedOf(value);
  if (tagged?.tag === BYTES_TAG) return `binary'${Buffer.from(tagged.base64, 'base64').toString('base64url')}'`;
  throw new PermanentError(`${what}: a ${Array.isArray(value) ? 'list' : typeof value} has no OData literal`);
}

/** A canonical watermark value as the literal of its type (`string` and unknown types are quoted). */
export function watermarkLiteral(type: WatermarkType | undefined, canonical: string): string {
  return type === 'datetime' || type === 'date' || type === 'number' ? canonical : quoteString(canonical);
}

/**
 * The key segment of a record: `(7)`, `(00000000-…)`, or `(name='A-1',other=2)`; values
 * percent-encoded for a URL path. A single key is written bare when `bareSingleKey`.
 */
export function keySegment(keys: ReadonlyArray<readonly [string, unknown]>, bareSingleKey: boolean, what: string): string {
  if (keys.length === 0) throw new ConfigError(`${what}: no key fields`);
  // `@` and `:` may stand in a path segment; keeping them readable keeps e-mail keys and times legible.
  const part = (value: unknown) => encodeURIComponent(literal(value, what)).replace(/%(40|3A)/g, (m) => decodeURIComponent(m));
  if (keys.length === 1 && bareSingleKey) return `(${part(keys[0][1])})`;
  return `(${keys.map(([name, value]) => `${identifier(name, what)}=${part(value)}`).join(',')})`;
}

/**
 * A query string from OData options, values percent-encoded except the characters OData URLs
 * keep readable (`$ ' ( ) , : @ /`).
 */
export function queryString(options: ReadonlyArray<readonly [string, string | undefined]>): string {
  const parts = options
    .filter((entry): entry is readonly [string, string] => entry[1] !== undefined && entry[1] !== '')
    .map(([name, value]) => `${name}=${encodeURIComponent(value).replace(/%(24|27|28|29|2C|3A|40|2F)/g, (m) => decodeURIComponent(m))}`);
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}
