import type { ApplicationProperties } from '../message-bus';

/**
 * Rows that cannot be decoded into a message. The bus writes every row itself, so a defect means
 * the file was edited or damaged; one such row must not hold the messages claimed with it (a
 * receive that threw for it would leave all of them locked until their deliveries ran out). A
 * receive dead-letters the row alone with {@link UNREADABLE_REASON}, and everything that reads
 * rows back (receive, peek, abandon, dead-letter) decodes what can be read.
 */

/** Dead-letter reason of a row that could not be decoded (the description names the defect). */
export const UNREADABLE_REASON = 'UnreadableMessage';

/**
 * Property under which unreadable application properties are kept, as the stored text: the
 * message stays readable (and movable) and nothing of what was stored is lost.
 */
const UNREADABLE_PROPERTIES = 'UnreadableProperties';

/** Application properties decoded from their stored JSON, and what is wrong with them, if anything. */
export interface DecodedProps {
  props: ApplicationProperties;
  defect?: string;
}

function propsDefect(raw: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    return `its application properties are not valid JSON (${(err as Error).message})`;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return `its application properties are not a JSON object (got ${Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : typeof parsed})`;
  }
  for (const [key, value] of Object.entries(parsed)) {
    if (value !== null && typeof value === 'object') return `its application property ${JSON.stringify(key)} is not a string, number, boolean or null`;
  }
  return undefined;
}

/**
 * Decodes stored application properties. Never throws: unreadable ones come back as
 * `{ UnreadableProperties: <the stored text> }` with the defect.
 */
export function readProps(raw: string | null): DecodedProps {
  if (raw === null || raw === '') return { props: {} };
  const defect = propsDefect(raw);
  if (defect !== undefined) return { props: { [UNREADABLE_PROPERTIES]: raw }, defect };
  return { props: JSON.parse(raw) as ApplicationProperties };
}

/** The columns of a stored message that decoding depends on. */
export interface RowParts {
  props: string | null;
  /** False when the message's contents row is missing. */
  hasContents: boolean;
  enqueuedAt: unknown;
  body: unknown;
}

/**
 * What makes a row undecodable, or undefined when it is sound. `lost` is set when nothing of
 * the message can be handed out (its contents row is missing: no id, no body).
 */
export function rowDefect(row: RowParts): { defect: string; lost: boolean } | undefined {
  if (!row.hasContents) return { defect: 'its contents row is missing (message id and body are lost)', lost: true };
  // Text is readable as UTF-8 bytes (a row edited by hand); anything else is not a body.
  if (!Buffer.isBuffer(row.body) && typeof row.body !== 'string') return { defect: `its body is not a blob (got ${row.body === null ? 'null' : typeof row.body})`, lost: false };
  if (typeof row.enqueuedAt !== 'number' || !Number.isFinite(row.enqueuedAt)) return { defect: 'its enqueued time is not a number', lost: false };
  const defect = row.props === null ? undefined : propsDefect(row.props);
  return defect === undefined ? undefined : { defect, lost: false };
}

/** A body as stored (a blob; text or a number where the row was edited by hand) as bytes. */
export function bodyBytes(body: unknown): Buffer {
  if (Buffer.isBuffer(body)) return body;
  return Buffer.from(body === null || body === undefined ? '' : String(body), 'utf8');
}

/** An enqueued time as stored, as a Date (the epoch when the row holds no number). */
export function storedTime(value: unknown): Date {
  return new Date(typeof value === 'number' && Number.isFinite(value) ? value : 0);
}
