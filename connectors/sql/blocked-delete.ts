import type { ItemOutcome } from '../base/target-batch';
import { PermanentError } from '../../src/platform/errors';

/**
 * A DELETE refused by a foreign key. The error tables classify a foreign-key
 * violation as "a referenced record is missing" (transitive: an insert or update whose parent has
 * not arrived yet), but they cannot see which statement failed. On a DELETE the same code means
 * the opposite: other rows still refer to this one (deleting a customer that still has contacts).
 *
 * Parking it as transitive would be wrong: the mover's `missing-dependency` rule (and the
 * scheduled requeue) would resubmit it forever, and nothing Highwater syncs later makes it
 * succeed unless the dependent rows are deleted first. Retrying it as transient is no better:
 * ten deliveries of noise, and it would count towards the target's outage mode although the
 * target is healthy. So it is a **permanent** error with its own reason, dead-lettered at once
 * with that reason; a person decides (delete or reassign the dependent rows, then resubmit with
 * the mover, whose default rules leave permanent errors alone).
 *
 * Deletes of several rows of one group still get the batch's transitive re-passes first (a
 * self-referencing table: the child row later in the group): only what still fails after them
 * is reclassified.
 */

/** The reason in the error message (the error tables' reason for the same code is replaced). */
export const DEPENDENT_RECORDS_REASON = 'dependent records exist (foreign key): delete or reassign the rows that refer to this record first';

/** The error tables' reasons for a foreign-key violation, replaced in the message. */
const TABLE_REASONS = /a referenced record is missing \(foreign key\)|dependent records exist \(foreign key\)/;

/** Foreign-key violation codes: SQLite's extended result code, PostgreSQL's SQLSTATE, MariaDB/MySQL error numbers. */
const FOREIGN_KEY_CODES = new Set(['SQLITE_CONSTRAINT_FOREIGNKEY', '23503', '1451', '1452', '1216', '1217']);

function codeOf(err: unknown): unknown {
  if (!err || typeof err !== 'object') return undefined;
  const details = (err as { details?: { code?: unknown } }).details;
  return details?.code ?? (err as { code?: unknown }).code;
}

/** Whether `err` (classified or raw) is a foreign-key violation. */
function isForeignKeyViolation(err: unknown): boolean {
  return FOREIGN_KEY_CODES.has(String(codeOf(err)));
}

/** The error a failed DELETE throws: a foreign-key violation becomes {@link DEPENDENT_RECORDS_REASON}; anything else is returned as it is. */
export function blockedDeleteError(err: unknown): unknown {
  if (!isForeignKeyViolation(err)) return err;
  const text = err instanceof Error ? err.message : String(err);
  const message = TABLE_REASONS.test(text) ? text.replace(TABLE_REASONS, DEPENDENT_RECORDS_REASON) : `${DEPENDENT_RECORDS_REASON}: ${text}`;
  return new PermanentError(message, { cause: err, details: { code: String(codeOf(err)), reason: 'dependentRecords' } });
}

/** The outcomes of a delete group with every foreign-key failure reclassified (see {@link blockedDeleteError}). */
export function blockedDeleteOutcomes(outcomes: ItemOutcome[]): ItemOutcome[] {
  return outcomes.map((outcome) => (outcome?.status === 'failed' && isForeignKeyViolation(outcome.error) ? { status: 'failed', error: blockedDeleteError(outcome.error) } : outcome));
}
