import type { SourceConnector } from '../../../../connectors/base/source-connector';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { type EngineName, openEngine, type SqlTestEngine } from '../../../integration/connectors/sql/sql-test-engines';
import { at, type PreparedSource, type SourceHarness, type SourceRecord, type SourceScenario } from '../context';

/**
 * The contract on a real database (a SQLite file, or a throw-away PostgreSQL schema): one table
 * per case with an integer key `id`, `label`, the filter's `grp`, a soft-delete flag `deleted`
 * and the datetime watermark column `modified` (ISO 8601 text on SQLite).
 */
export async function sqlSourceHarness(name: EngineName): Promise<SourceHarness> {
  const db = await openEngine(name);
  let tables = 0;
  return {
    prepare: (scenario) => prepareTable(db, `contract_source_${++tables}`, scenario),
    close: () => db.close(),
  };
}

async function prepareTable(db: SqlTestEngine, table: string, scenario: SourceScenario): Promise<PreparedSource> {
  await db.exec(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY, label TEXT, grp TEXT, deleted ${db.booleanType} NOT NULL, modified ${db.timestampType})`);
  const add = (rows: readonly SourceRecord[]) =>
    db.insert(table, rows.map((r) => ({ id: r.key, label: r.label ?? null, grp: r.group ?? 'keep', deleted: r.deleted ?? false, modified: at(r.at) })));
  await add(scenario.seed);
  const opened: SourceConnector[] = [];
  return {
    source: () => {
      const source = db.source();
      opened.push(source);
      return source;
    },
    entity: table,
    fields: { key: 'id', label: 'label', tracker: 'modified', group: 'grp' },
    watermarkType: 'datetime',
    watermark: (s) => WatermarkValue.initialize('datetime', s === null ? null : at(s)),
    keyValue: (key) => key,
    trackerOf: (r) => WatermarkValue.canonicalize('datetime', at(r.at)),
    groupValue: (group) => group,
    softDelete: { field: 'deleted', op: 'eq', value: true },
    add,
    released: () => (db.name === 'sqlite' ? sqliteReleased(db) : postgresReleased(db, table)),
    done: async () => {
      await Promise.all(opened.map((s) => s.close()));
    },
  };
}

/** No reader holds the file: a truncating checkpoint completes, an exclusive transaction begins. */
async function sqliteReleased(db: SqlTestEngine): Promise<void> {
  const [checkpoint] = await db.select('PRAGMA wal_checkpoint(TRUNCATE)');
  expect(checkpoint).toMatchObject({ busy: 0 });
  await db.exec('BEGIN EXCLUSIVE; ROLLBACK');
}

/** No session holds a lock on the table (a stopped run left no transaction open). */
async function postgresReleased(db: SqlTestEngine, table: string): Promise<void> {
  await db.exec('BEGIN');
  try {
    await db.exec(`SET LOCAL lock_timeout = '2s'; LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  } finally {
    await db.exec('ROLLBACK');
  }
}
