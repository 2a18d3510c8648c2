import { JobActionType } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import { WatermarkValue } from '../../src/model/watermark-value';
import { toText, type SourceRow } from '../base/operations';
import { parseExactJson } from '../odata/exact-json';
import { JsonText } from '../../src/model/json-text';
import type { SqlRow } from './dialect';
import type { OutboxTable } from './outbox-dialect';

/**
 * What one outbox row means: a change of one record, or a dead row with the reason it cannot be
 * one. Pure: the reader decides what to do with either.
 */
export type OutboxRowMeaning =
  | { kind: 'change'; row: SourceRow; changeTracker: string; action?: JobActionType.Delete; missingFieldsAreNull?: boolean }
  | { kind: 'dead'; changeTracker: string; sourceKey: string | null; reason: string };

/**
 * The source field that carries the row's outbox id beside the payload's fields: mapped to the
 * target's version column, it is what `skipOutdatedMessages` compares with the change tracker.
 */
const OUTBOX_ID_FIELD = '$outbox.id';

const UPSERT_ACTIONS = new Set(['insert', 'update', 'upsert']);
const DELETE_ACTION = 'delete';

/**
 * Reads one claimed row. The id is the change tracker (canonical number). The payload is a JSON
 * object (text, what the driver parsed from json/jsonb, or the exact text it kept of a document
 * with numbers beyond a double); a delete may have none. A single-field
 * source key missing from the payload is taken from the aggregate key column; one that differs
 * from it makes the row dead (the aggregate key orders the record's changes, the payload's would
 * write another record). An insert or update must carry every mapped source field (a missing one
 * would write NULL over the target's value); a delete needs only the key.
 * @throws nothing: an id that is not a number (a column of the wrong type) is reported as a dead
 *   row too, so that it cannot stop the rows after it.
 */
export function outboxRowMeaning(outboxRow: SqlRow, table: OutboxTable, mapping: Mapping): OutboxRowMeaning {
  const { raw } = table;
  const aggregateKey = outboxRow[raw.aggregateKey];
  const keyText = aggregateKey === null || aggregateKey === undefined ? null : toText(aggregateKey);
  let changeTracker: string;
  try {
    changeTracker = WatermarkValue.canonicalize('number', outboxRow[raw.id]);
  } catch {
    return dead(String(outboxRow[raw.id]), keyText, `${raw.id} ${JSON.stringify(String(outboxRow[raw.id]))} is not a number`);
  }
  const actionValue = outboxRow[raw.action];
  const action = typeof actionValue === 'string' ? actionValue.trim().toLowerCase() : '';
  const isDelete = action === DELETE_ACTION;
  if (!isDelete && !UPSERT_ACTIONS.has(action)) {
    return dead(changeTracker, keyText, `${raw.action} ${JSON.stringify(actionValue ?? null)} is not an action of the outbox (known: insert, update, upsert, delete)`);
  }
  if (keyText === null || keyText === '') return dead(changeTracker, null, `${raw.aggregateKey} is ${keyText === null ? 'null' : 'empty'}`);

  const payload = parsePayload(outboxRow[raw.payload]);
  if (typeof payload === 'string') return dead(changeTracker, keyText, `${raw.payload} ${payload}`);
  if (payload === null && !isDelete) return dead(changeTracker, keyText, `${raw.payload} is null, but an ${action} needs the record's fields`);
  // The same value from every driver (pg gives bigint columns as text): a number, or its digits beyond 2^53.
  const idValue = Number.isSafeInteger(Number(changeTracker)) ? Number(changeTracker) : changeTracker;
  const row: Record<string, unknown> = { ...(payload ?? {}), [OUTBOX_ID_FIELD]: idValue };
  if (!isDelete) {
    const missing = mapping.fields.find((f) => f.source !== undefined && !(f.source in row) && !mapping.source.key.includes(f.source));
    if (missing?.source !== undefined) return dead(changeTracker, keyText, `${raw.payload} has no field "${missing.source}" (mapped to "${missing.target}")`);
  }
  if (mapping.source.key.length === 1) {
    const [field] = mapping.source.key;
    if (row[field] === undefined || row[field] === null) row[field] = aggregateKey;
    else if (toText(row[field]) !== keyText) {
      return dead(changeTracker, keyText, `${raw.payload} field "${field}" is ${JSON.stringify(toText(row[field]))}, but ${raw.aggregateKey} is ${JSON.stringify(keyText)}`);
    }
  }
  return isDelete ? { kind: 'change', row, changeTracker, action: JobActionType.Delete, missingFieldsAreNull: true } : { kind: 'change', row, changeTracker };
}

function dead(changeTracker: string, sourceKey: string | null, reason: string): OutboxRowMeaning {
  return { kind: 'dead', changeTracker, sourceKey, reason };
}

/** The payload as an object, null for none, or what is wrong with it (a string). */
function parsePayload(value: unknown): Record<string, unknown> | null | string {
  if (value === null || value === undefined) return null;
  let parsed: unknown = value;
  if (typeof value === 'string' || value instanceof JsonText) {
    const text = String(value);
    try {
      // Numbers a double cannot hold (big integers, long decimals) stay exact, as strings.
      parsed = parseExactJson(text) ?? JSON.parse(text);
    } catch (err) {
      return `is not JSON: ${(err as Error).message}`;
    }
  } else if (value instanceof Uint8Array) {
    return 'is bytes, not JSON text';
  }
  if (parsed === null) return null;
  if (typeof parsed !== 'object' || Array.isArray(parsed)) return `is not a JSON object (got ${Array.isArray(parsed) ? 'an array' : typeof parsed})`;
  return parsed as Record<string, unknown>;
}
