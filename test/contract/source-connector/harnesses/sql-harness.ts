import type { SourceConnector } from '../../../../connectors/base/source-connector';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { type EngineName, openEngine, type SqlTestEngine } from '../../../integration/connectors/sql/sql-test-engines';
import { at, type PreparedSource, type PreparedValues, type SourceHarness, type SourceRecord, type SourceScenario } from '../context';
import { BYTES_VALUE, DECIMAL_VALUE, INSTANT_TEXT, INSTANT_UTC, INT64_VALUES, JSON_EXACT_TEXT, JSON_VALUE } from '../../value-matrix';

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
    prepareValues: () => prepareValues(db, `contract_values_${++tables}`),
    close: () => db.close(),
  };
}

/** The value matrix in the engine's own types: INTEGER/int8, numeric (TEXT on SQLite: no exact decimal type), BLOB/bytea, timestamptz (TEXT), jsonb/JSON (TEXT) twice. */
async function prepareValues(db: SqlTestEngine, table: string): Promise<PreparedValues> {
  const sqlite = db.name === 'sqlite';
  const mysql = db.name === 'mysql';
  await db.exec(
    sqlite
      ? `CREATE TABLE ${table} (id INTEGER PRIMARY KEY, i8 INTEGER, dec TEXT, bin BLOB, ts TEXT, doc TEXT, docx TEXT, modified TEXT)`
      : mysql
        ? `CREATE TABLE ${table} (id integer PRIMARY KEY, i8 bigint, "dec" decimal(32,12), bin blob, ts datetime(6), doc json, docx json, modified datetime(6))`
        : `CREATE TABLE ${table} (id integer PRIMARY KEY, i8 int8, dec numeric, bin bytea, ts timestamptz, doc jsonb, docx jsonb, modified timestamptz)`,
  );
  const bytes = sqlite || mysql ? `X'${BYTES_VALUE.toString('hex')}'` : `'\\x${BYTES_VALUE.toString('hex')}'`;
  // MySQL: a DATETIME holds no offset (the instant in UTC), and a literal's backslashes are escapes.
  const instant = mysql ? INSTANT_UTC.replace('T', ' ').replace('Z', '') : INSTANT_TEXT;
  const json = mysql ? JSON.stringify(JSON_VALUE).replace(/\\/g, '\\\\') : JSON.stringify(JSON_VALUE);
  const first = `'${DECIMAL_VALUE}', ${bytes}, '${instant}', '${json}', '${JSON_EXACT_TEXT}'`;
  const modified = mysql ? at(1).replace('T', ' ').replace('Z', '') : at(1);
  const rows = INT64_VALUES.map((v, i) => `(${i + 1}, ${v}, ${i === 0 ? first : 'NULL, NULL, NULL, NULL, NULL'}, '${modified}')`);
  await db.exec(`INSERT INTO ${table} (id, i8, "dec", bin, ts, doc, docx, modified) VALUES ${rows.join(', ')}`);
  const opened: SourceConnector[] = [];
  return {
    source: () => {
      const source = db.source();
      opened.push(source);
      return source;
    },
    entity: table, key: 'id', tracker: 'modified', watermarkType: 'datetime',
    columns: { int64: 'i8', decimal: 'dec', bytes: 'bin', instant: 'ts', json: 'doc', jsonExact: 'docx' },
    jsonAsText: sqlite,
    done: async () => {
      await Promise.all(opened.map((s) => s.close()));
    },
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
    released: () => (db.name === 'sqlite' ? sqliteReleased(db) : db.name === 'mysql' ? mysqlReleased(db, table) : postgresReleased(db, table)),
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

/** No session holds a lock on the table: this session locks every row within 2 s. */
async function mysqlReleased(db: SqlTestEngine, table: string): Promise<void> {
  await db.exec('SET SESSION innodb_lock_wait_timeout = 2');
  await db.exec('START TRANSACTION');
  try {
    await db.select(`SELECT * FROM ${table} FOR UPDATE`);
  } finally {
    await db.exec('ROLLBACK');
  }
}
