import type { FilterCondition } from '../model/job';
import type { JsonValue } from '../model/queue-message';

/**
 * How a pair writes a delete, and a restore, on a side whose deletes are a flag (`softDelete`):
 * a delete sets the flag instead of removing the row, a restore (a record written back after a
 * delete lost its conflict, or `deletes: restore`) clears it — else the restored row would still
 * read as deleted, and its next read would delete the other side again.
 *
 * - `eq` value → delete sets the value; restore sets its opposite (`true`↔`false`, `1`↔`0`,
 *   `'1'`↔`'0'`), else null;
 * - `isNotNull` → delete sets the time of the write (ISO 8601); restore sets null;
 * - `isNull` → delete sets null is no delete: not supported (the row is removed), restore leaves it.
 *
 * Undefined: the condition has no such write (the row is removed on delete; a restore writes the
 * pair's fields only).
 */
export function softDeleteWrite(condition: FilterCondition | undefined, kind: 'delete' | 'restore', now: Date): Record<string, JsonValue> | undefined {
  if (!condition) return undefined;
  const { field, op, value } = condition;
  if (op === 'eq' && value !== undefined && !Array.isArray(value)) return { [field]: kind === 'delete' ? value : opposite(value) };
  if (op === 'isNotNull') return { [field]: kind === 'delete' ? now.toISOString() : null };
  return undefined;
}

function opposite(value: string | number | boolean | null): JsonValue {
  if (typeof value === 'boolean') return !value;
  if (value === 1 || value === 0) return 1 - value;
  if (value === '1' || value === '0') return value === '1' ? '0' : '1';
  return null;
}
