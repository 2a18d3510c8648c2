import type { Mapping } from '../../../../src/model/mapping';
import type { JsonValue } from '../../../../src/model/queue-message';
import { type EngineName, openEngine, type SqlTestEngine } from '../../../integration/connectors/sql/sql-test-engines';
import { type ContractItem, type ContractRecord, type GroupFailure, type PreparedTarget, type PreparedValueTarget, type Scenario, type TargetHarness, targetKeyFor } from '../context';
import { DECIMAL_VALUE, exactJson, instantOf, JSON_EXACT_TEXT } from '../../value-matrix';

const keyOf = (n: number) => `K-${n}`;
const numberOf = (key: unknown) => Number(String(key).slice(2));

/**
 * The contract on a real database (a SQLite file, or a throw-away PostgreSQL schema): one table
 * per case with a text key `code`, a required whole number `qty`, a version column
 * `modified_at`, a self-referencing parent `parent_code` and a generated `doc_no`.
 */
export async function sqlHarness(name: EngineName): Promise<TargetHarness> {
  const db = await openEngine(name);
  let tables = 0;
  return {
    prepare: (scenario) => prepareTable(db, `contract_${++tables}`, scenario),
    prepareValues: () => prepareValues(db, `contract_values_${++tables}`),
    close: () => db.close(),
  };
}

/**
 * The value matrix's table: INTEGER/int8, TEXT/numeric (SQLite has no exact decimal type),
 * BLOB/bytea, TEXT/timestamptz, TEXT/jsonb (twice); and a column that cannot hold every value exactly
 * (NUMERIC on SQLite: 8-byte floats; numeric(12,2) on PostgreSQL; an integer column for a JSON document).
 */
async function prepareValues(db: SqlTestEngine, table: string): Promise<PreparedValueTarget> {
  const sqlite = db.name === 'sqlite';
  const mysql = db.name === 'mysql';
  await db.exec(
    sqlite
      ? `CREATE TABLE ${table} (id INTEGER PRIMARY KEY, i8 INTEGER, dec TEXT, bin BLOB, ts TEXT, doc TEXT, docx TEXT, amount NUMERIC, small INTEGER)`
      : mysql
        ? `CREATE TABLE ${table} (id integer PRIMARY KEY, i8 bigint, "dec" decimal(32,12), bin blob, ts datetime(6), doc json, docx json, amount decimal(12,2), small int)`
        : `CREATE TABLE ${table} (id integer PRIMARY KEY, i8 int8, dec numeric, bin bytea, ts timestamptz, doc jsonb, docx jsonb, amount numeric(12,2), small int4)`,
  );
  const target = db.target();
  const select = sqlite
    ? `SELECT CAST(i8 AS TEXT) AS i8, dec, CASE WHEN bin IS NULL THEN NULL ELSE hex(bin) END AS bin, ts, doc, docx FROM ${table} WHERE id = `
    : mysql
      ? `SELECT CAST(i8 AS CHAR) AS i8, CAST("dec" AS CHAR) AS "dec", hex(bin) AS bin, ts, doc, docx FROM ${table} WHERE id = `
      : `SELECT i8::text AS i8, dec::text AS dec, encode(bin, 'hex') AS bin, ts::text AS ts, doc::text AS doc, docx::text AS docx FROM ${table} WHERE id = `;
  return {
    target,
    mapping: { name: 'values', source: { entity: 'src', key: ['id'] }, target: { entity: table, key: ['id'] }, fields: [] },
    key: 'id',
    columns: { int64: 'i8', decimal: 'dec', bytes: 'bin', instant: 'ts', json: 'doc', jsonExact: 'docx' },
    read: async (key) => {
      const [r] = await db.select(`${select}${key}`);
      return {
        int64: r.i8, decimal: r.dec,
        bytes: r.bin === null ? null : String(r.bin).toLowerCase(),
        instant: r.ts === null ? null : instantOf(r.ts),
        json: r.doc === null ? null : JSON.parse(String(r.doc)),
        jsonExact: r.docx === null ? null : exactJson(String(r.docx)),
      };
    },
    inexact: sqlite
      ? [{ column: 'amount', value: DECIMAL_VALUE }, { column: 'i8', value: '9223372036854775808' }, { column: 'small', value: { $jsonText: JSON_EXACT_TEXT } }]
      : [{ column: 'amount', value: '1.005' }, { column: 'i8', value: '9223372036854775808' }, { column: 'small', value: 1.5 }, { column: 'small', value: { $jsonText: JSON_EXACT_TEXT } }],
    done: async () => undefined,
  };
}

async function prepareTable(db: SqlTestEngine, table: string, scenario: Scenario): Promise<PreparedTarget> {
  const sqlite = db.name === 'sqlite';
  await db.exec(
    db.name === 'mysql'
      ? `CREATE TABLE ${table} (doc_no bigint AUTO_INCREMENT PRIMARY KEY, code varchar(100) NOT NULL UNIQUE, label text, ` +
          `qty int NOT NULL, modified_at datetime(6), parent_code varchar(100) REFERENCES ${table}(code))`
      : sqlite
      ? `CREATE TABLE ${table} (doc_no INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, label TEXT, qty INTEGER NOT NULL, ` +
          `modified_at TEXT, parent_code TEXT REFERENCES ${table}(code)) STRICT`
      : `CREATE TABLE ${table} (doc_no bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, code TEXT NOT NULL UNIQUE, label TEXT, ` +
          `qty integer NOT NULL, modified_at timestamptz, parent_code TEXT REFERENCES ${table}(code))`,
  );
  await db.insert(table, scenario.seed.map((r) => ({
    code: keyOf(r.key), label: r.label ?? null, qty: r.qty ?? 0, modified_at: r.version ?? null, parent_code: r.parent === undefined ? null : keyOf(r.parent),
  })));
  // A short busy timeout: the group-failure case holds the write lock from another connection.
  const target = db.target(db.connection(sqlite ? { versionField: 'modified_at', busyTimeoutMs: 100 } : { versionField: 'modified_at' }));
  const mapping: Mapping = { name: 'contract', source: { entity: 'src', key: ['id'] }, target: { entity: table, key: ['code'] }, fields: [] };
  const row = async (key: number) => (await db.select(`SELECT * FROM ${table} WHERE code = '${keyOf(key)}'`))[0];
  let release: (() => Promise<void>) | undefined;

  return {
    target,
    mapping,
    targetKeyOf: (item: ContractItem) => targetKeyFor(item, 'code', keyOf),
    fieldsOf: (item: ContractItem) => {
      const fields: Record<string, JsonValue> = {};
      if (item.label !== undefined) fields.label = item.label;
      if (item.qty !== undefined) fields.qty = item.qty;
      if ('parent' in item && item.parent !== undefined) fields.parent_code = keyOf(item.parent);
      return fields;
    },
    read: async (key) => {
      const r = await row(key);
      if (!r) return null;
      const record: ContractRecord = { key: numberOf(r.code), label: r.label as string, qty: Number(r.qty) };
      if (r.parent_code !== null) record.parent = numberOf(r.parent_code);
      return record;
    },
    generatedField: 'doc_no',
    // As the system gives it back: a number on SQLite, a string for a bigint (PostgreSQL, MySQL).
    generated: async (key) => (await row(key)).doc_no as JsonValue,
    failGroup: async (): Promise<GroupFailure> => {
      if (sqlite) {
        // Another connection holds the write lock: the group's BEGIN gives up after the busy timeout.
        await db.exec('BEGIN IMMEDIATE');
        release = () => db.exec('ROLLBACK');
        return { name: 'TransientError' };
      }
      release = db.name === 'mysql' ? await mysqlLockAndKill(db, table) : await lockAndCancel(db, table);
      return { name: 'TransientError' };
    },
    done: async () => {
      await release?.();
    },
  };
}

/**
 * PostgreSQL: another session locks the table, and cancels the group's statement once it waits
 * for that lock (SQLSTATE 57014, as a statement timeout ends it). Returns the release. Should no
 * statement come to wait within 10 s, the lock is released, so that the case fails instead of
 * hanging.
 */
async function lockAndCancel(db: SqlTestEngine, table: string): Promise<() => Promise<void>> {
  await db.exec(`BEGIN; LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  let released = false;
  const rollback = async () => {
    if (released) return;
    released = true;
    await db.exec('ROLLBACK');
  };
  const canceller = (async () => {
    const deadline = Date.now() + 10_000;
    while (!released && Date.now() < deadline) {
      // The lock's transaction would keep seeing its first snapshot of pg_stat_activity.
      await db.exec('SELECT pg_stat_clear_snapshot()');
      const cancelled = await db.select('SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE pg_backend_pid() = ANY (pg_blocking_pids(pid))');
      if (cancelled.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await rollback();
  })();
  return async () => {
    await canceller;
    await rollback();
  };
}

/**
 * MariaDB / MySQL: another session locks every row of the table (and its gaps), and kills the
 * group's statement once it waits for the lock (`KILL QUERY`: error 1317, as a statement timeout
 * ends it). Returns the release; as on PostgreSQL, it gives up after 10 s.
 */
async function mysqlLockAndKill(db: SqlTestEngine, table: string): Promise<() => Promise<void>> {
  await db.exec('START TRANSACTION');
  await db.exec(`SELECT * FROM ${table} FOR UPDATE`);
  let released = false;
  const rollback = async () => {
    if (released) return;
    released = true;
    await db.exec('ROLLBACK');
  };
  const killer = (async () => {
    const deadline = Date.now() + 10_000;
    while (!released && Date.now() < deadline) {
      // A statement waiting for a row lock on a unique key waits in the optimizer ("Statistics"),
      // before innodb_trx lists it: found by its text in the process list.
      const waiting = await db.select(
        `SELECT ID AS "id" FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND COMMAND = 'Query' AND INFO LIKE '%FOR UPDATE%' AND INFO LIKE '%"${table}"%'`,
      );
      if (waiting.length > 0) {
        for (const w of waiting) await db.exec(`KILL QUERY ${Number(w.id)}`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await rollback();
  })();
  return async () => {
    await killer;
    await rollback();
  };
}
