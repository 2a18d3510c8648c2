import { ConfigError, PermanentError } from '../../src/platform/errors';
import type { JsonValue } from '../../src/model/queue-message';
import { identifier, isGuid, keySegment } from '../odata/odata-literals';
import type { DataverseLookup } from './dataverse-settings';

const BIND = '@odata.bind';
/** An entity reference as written in a bind: `/accounts(…)` or `accounts(…)`. */
const REFERENCE = /^\/?[A-Za-z_][A-Za-z0-9_]*\(.+\)$/;

/**
 * The request body of a Dataverse write: lookup columns become `@odata.bind` references.
 * - A field named like a navigation property with a `lookups` entry for the target entity set:
 *   `parentcustomerid_account: "A-1"` → `"parentcustomerid_account@odata.bind": "/accounts(accountnumber='A-1')"`.
 * - A field already named `<property>@odata.bind`: a reference (`/accounts(…)`) is kept; a bare
 *   value is bound through the `lookups` entry of `<property>`.
 * - null clears the lookup (`"<property>@odata.bind": null`).
 * @throws ConfigError for a bare bind value without a `lookups` entry.
 */
export function withLookupBinds(
  record: Readonly<Record<string, JsonValue>>,
  entitySet: string,
  lookups: Record<string, Record<string, DataverseLookup>> | undefined,
): Record<string, JsonValue> {
  const ofSet = lookups?.[entitySet] ?? {};
  const body: Record<string, JsonValue> = {};
  for (const [field, value] of Object.entries(record)) {
    const property = field.endsWith(BIND) ? field.slice(0, -BIND.length) : field;
    const lookup = Object.hasOwn(ofSet, property) ? ofSet[property] : undefined;
    if (!field.endsWith(BIND) && !lookup) {
      body[field] = value;
      continue;
    }
    body[`${property}${BIND}`] = reference(value, property, entitySet, lookup);
  }
  return body;
}

function reference(value: JsonValue, property: string, entitySet: string, lookup: DataverseLookup | undefined): JsonValue {
  if (value === null) return null;
  if (typeof value === 'string' && REFERENCE.test(value)) return value.startsWith('/') ? value : `/${value}`;
  const where = `field "${property}${BIND}" of ${entitySet}`;
  if (!lookup) throw new ConfigError(`${where}: ${JSON.stringify(value)} is not a reference such as /accounts(<id>); name the related table in settings.lookups.${entitySet}.${property}`);
  if (typeof value !== 'string' && typeof value !== 'number') throw new PermanentError(`${where}: a ${typeof value} cannot name a record`);
  const set = identifier(lookup.entitySet, `settings.lookups.${entitySet}.${property}.entitySet`);
  if (lookup.key === undefined && !isGuid(value)) throw new PermanentError(`${where}: ${JSON.stringify(value)} is not a GUID (set settings.lookups.${entitySet}.${property}.key for an alternate key)`);
  const segment = lookup.key === undefined ? keySegment([['id', value]], true, where) : keySegment([[lookup.key, value]], false, where);
  return `/${set}${segment}`;
}
