import type { z } from 'zod';
import { described, integerBetween, knownProperties, matching } from '../base/settings-schema';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]*$/;
const TABLE = /^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)?$/;
const column = (description: string, defaultName: string) =>
  described(
    matching(IDENTIFIER, 'must be a plain SQL identifier (letters, digits, _ and $, not starting with a digit)').optional(),
    `${description} Default "${defaultName}".`,
    defaultName,
  );

/** Column names of the outbox table; every one has a default. */
export const OUTBOX_COLUMN_DEFAULTS = {
  id: 'id',
  aggregateKey: 'aggregate_key',
  action: 'action',
  payload: 'payload',
  createdAt: 'created_at',
  claimedAt: 'claimed_at',
  processedAt: 'processed_at',
  deadReason: 'dead_reason',
} as const;

export type OutboxColumnName = keyof typeof OUTBOX_COLUMN_DEFAULTS;

const columnsSchema = knownProperties(
  {
    id: column('Increasing integer (identity, autoincrement, sequence): orders the changes of one aggregate and is each message\'s change tracker.', 'id'),
    aggregateKey: column('Key of the changed record (a single-field source key); a key field missing from the payload is taken from it.', 'aggregate_key'),
    action: column('What happened: insert, update or upsert (the job\'s action), or delete (case-insensitive).', 'action'),
    payload: column('The record\'s fields as a JSON object (text or json/jsonb); may be NULL for a delete.', 'payload'),
    createdAt: column('When the application wrote the row (read for operators only).', 'created_at'),
    type: described(
      matching(IDENTIFIER, 'must be a plain SQL identifier (letters, digits, _ and $, not starting with a digit)').optional(),
      'Aggregate type column: when set, a job reads only the rows whose type equals its mapping\'s source.entity. Default: none (every row is the mapping\'s).',
    ),
    claimedAt: column('Written by Highwater: when a reader claimed the row (NULL: free). Nullable timestamp (PostgreSQL timestamptz) or text (SQLite).', 'claimed_at'),
    processedAt: column('Written by Highwater: when the row\'s message was on the bus (NULL: not yet). Nullable, as claimedAt.', 'processed_at'),
    deadReason: column('Written by Highwater: why the row was set aside (bad payload, unknown action); NULL for a good row. Nullable text.', 'dead_reason'),
  },
  'unknown column of the outbox',
);

/** The `outbox` block of a SQL connection's settings: the connection is read as an outbox source. */
export const outboxSettingsSchema = knownProperties(
  {
    table: described(
      matching(TABLE, 'must be a table name (name or schema.name, plain SQL identifiers)'),
      'The outbox table the application writes in the transaction of each business change.',
    ),
    columns: described(columnsSchema.optional(), 'Column names of the outbox table. Default: the names shown for each.'),
    leaseSeconds: described(
      integerBetween(10, 86_400).optional(),
      'How long a claimed row belongs to its reader: a reader that dies before marking its rows leaves them to another after this. Default 300.',
      300,
    ),
    retentionDays: described(
      integerBetween(1, 3650).optional(),
      'Delete processed rows older than this many days, at the start of a run, 500 rows a statement, at most 20 statements a run. Default: never delete.',
    ),
  },
  'unknown setting of the outbox',
);

/** How the `outbox` setting is described in the SQL connections' schemas. */
export const OUTBOX_DESCRIPTION =
  'Read this connection as an outbox source: rows claimed, sent and marked processed instead of read past a watermark (as a target the connection is unchanged). Default: none (watermark reads).';

export type OutboxSettings = z.output<typeof outboxSettingsSchema>;

/** Default lease of a claimed row, seconds. */
export const DEFAULT_LEASE_SECONDS = 300;
/** Processed rows deleted per statement by the retention. */
export const RETENTION_BATCH = 500;
/** Retention statements at most per run: a large backlog is deleted over several runs, none held up long. */
export const RETENTION_STATEMENTS_PER_RUN = 20;
