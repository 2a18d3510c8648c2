import { PermanentError } from '../../src/platform/errors';
import type { Mapping } from '../../src/model/mapping';
import { splitSourceKey } from '../../src/model/source-key';
import { isGuid, literal, quoteString } from './odata-literals';
import { typedValue } from './typed-values';

/**
 * `k1 eq <literal> and k2 eq <literal>` for one message `sourceKey`. A key part becomes the
 * literal of its property's type when the service's `$metadata` (or Dataverse's column
 * definitions) was read; otherwise as a value of that text would be written (a GUID or an
 * instant bare, other text quoted) — a numeric key of an untyped service is then refused by the
 * service (an error, never a record wrongly taken for gone).
 * @param keys the key properties (checked identifiers), in `mapping.source.key` order.
 * @throws PermanentError for a part that is no value of its property's type (text for an
 *   integer or a GUID, beyond 64 bits).
 */
export function keyCondition(sourceKey: string, keys: readonly string[], types: ReadonlyMap<string, string> | undefined, mapping: Mapping): string {
  const parts = splitSourceKey(sourceKey);
  return keys.map((key, i) => `${key} eq ${keyLiteral(parts[i] ?? '', types?.get(key), `mapping "${mapping.name}": source key "${key}"`)}`).join(' and ');
}

/** The literal of a key part of type `type` (`Edm.*`; undefined: untyped). */
function keyLiteral(text: string, type: string | undefined, what: string): string {
  // Text stays text, even when it looks like a GUID or an instant (which `literal` writes bare).
  if (type === 'Edm.String') return quoteString(text);
  if (type === 'Edm.Guid' && !isGuid(text)) throw new PermanentError(`${what} (${type}): ${JSON.stringify(text)} is not a GUID`);
  if (type === 'Edm.Boolean' && (text === 'true' || text === 'false')) return text;
  if ((type === 'Edm.Double' || type === 'Edm.Single') && text.trim() !== '' && Number.isFinite(Number(text))) return literal(Number(text), what);
  // Integers and decimals: checked, every digit kept; anything else is refused with a PermanentError.
  return literal(typedValue(text, type, what), what);
}
