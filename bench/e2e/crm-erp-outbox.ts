import type Database from 'better-sqlite3';

/**
 * The crm-erp scenario with the CRM read through its outbox (`--source outbox`): the CRM writes
 * one outbox row after each change, in the change's transaction, as an application does, and the
 * three CRM jobs read the outbox instead of the tables. The outbox is SQLite, like the CRM of the
 * default run, so that the comparison changes one thing only: how the changes are found (claim
 * and mark by id instead of a watermark query on `modified_at`).
 */

/** The outbox as `examples/outbox/outbox.sql` has it. */
export const CRM_OUTBOX_SCHEMA = `
  CREATE TABLE outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, aggregate_type TEXT NOT NULL, aggregate_key TEXT NOT NULL,
    action TEXT NOT NULL, payload TEXT, created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    claimed_at TEXT, processed_at TEXT, dead_reason TEXT);
  CREATE INDEX outbox_free ON outbox (processed_at, dead_reason, id);
  CREATE INDEX outbox_processed ON outbox (processed_at);`;

/** The connection's `outbox` block: the aggregate type is the CRM table's name (the mappings' source entity). */
export const CRM_OUTBOX_SETTINGS = { table: 'outbox', columns: { type: 'aggregate_type' } };

export type OutboxWriter = (type: 'accounts' | 'contacts' | 'deleted_accounts', action: 'insert' | 'delete', row: Record<string, unknown> & { id: string }) => void;

/** Writes the outbox row of a change; call it right after the change, in its transaction. */
export function outboxWriter(crm: Database.Database): OutboxWriter {
  const insert = crm.prepare('INSERT INTO outbox (aggregate_type, aggregate_key, action, payload) VALUES (?, ?, ?, ?)');
  return (type, action, row) => void insert.run(type, row.id, action, JSON.stringify(row));
}

interface Config {
  connections: Array<{ name: string; settings: object }>;
  mappings: Array<{ target: { versionField?: string }; fields: object[] }>;
  jobs: Array<{ source: string; watermark: { type: string; field: string } }>;
}

/**
 * The CRM connection reads its outbox; the jobs reading it take the outbox id as their watermark
 * (the response job, reading the ERP, is unchanged). An outbox job's version guard compares
 * outbox ids (its watermark type is number), so the versioned mapping writes `$outbox.id` into
 * the ERP's `crm_version` and compares that instead of `modified_at` (which it still writes).
 */
export function readCrmThroughOutbox<C extends Config>(config: C): C {
  return {
    ...config,
    connections: config.connections.map((c) => (c.name === 'crm' ? { ...c, settings: { ...c.settings, outbox: CRM_OUTBOX_SETTINGS } } : c)),
    mappings: config.mappings.map((m) =>
      m.target.versionField === 'modified_at' ? { ...m, target: { ...m.target, versionField: 'crm_version' }, fields: [...m.fields, { target: 'crm_version', source: '$outbox.id' }] } : m,
    ),
    jobs: config.jobs.map((j) => (j.source === 'crm' ? { ...j, watermark: { type: 'number', field: 'id' } } : j)),
  };
}
