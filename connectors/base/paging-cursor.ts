import { PermanentError } from '../../src/platform/errors';

/** Current version of the opaque paging cursor envelope. */
const CURSOR_VERSION = 1;

/**
 * Paging cursors handed to the durable path are opaque to it: base64url JSON with a version, so a
 * connector can change what it keeps without old cursors being misread.
 */
export function encodeOpaqueCursor(position: object): string {
  return Buffer.from(JSON.stringify({ v: CURSOR_VERSION, ...position }, bigintAsDigits), 'utf8').toString('base64url');
}

/** A BigInt (a SQLite integer beyond 2^53) as its digits: SQL compares them with the column's integers exactly. */
const bigintAsDigits = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);

/**
 * The fields of a cursor made by {@link encodeOpaqueCursor}; the caller checks their shape.
 * @throws PermanentError when the text is not such a cursor.
 */
export function decodeOpaqueCursor(cursor: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed) || (parsed as { v?: unknown }).v !== CURSOR_VERSION) {
    throw invalidCursor();
  }
  return parsed as Record<string, unknown>;
}

export function invalidCursor(): PermanentError {
  return new PermanentError('invalid paging cursor');
}
