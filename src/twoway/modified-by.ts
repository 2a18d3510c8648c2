import type { Mapping } from '../model/mapping';
import type { PairSide } from '../model/pair';
import type { QueueMessage } from '../model/queue-message';

/** The name the last editor travels under in a pair's reads by key (never a field of either side: `$` is no column name here). */
const MODIFIED_BY_FIELD = '$modifiedBy';

/**
 * The mapping a pair side is read by key with: its job's, plus the side's `modifiedBy` field when
 * configured — read only, never written (processing writes the pair's fields, not the message's).
 */
export function readMappingWithEditor(mapping: Mapping, side: PairSide): Mapping {
  if (!side.modifiedBy) return mapping;
  return { ...mapping, fields: [...mapping.fields, { target: MODIFIED_BY_FIELD, source: side.modifiedBy.field }] };
}

/**
 * The second echo signal: the record was last changed by Highwater's own user on that side.
 * Undefined when the side does not record it (or the read lacks it): the hashes decide alone.
 */
export function lastChangedByUs(side: PairSide, record: QueueMessage | undefined): boolean | undefined {
  if (!side.modifiedBy || !record || !(MODIFIED_BY_FIELD in record.fields)) return undefined;
  const editor = record.fields[MODIFIED_BY_FIELD];
  return editor !== null && String(editor).toLowerCase() === side.modifiedBy.value.toLowerCase();
}
