import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { Client } from 'pg';

/**
 * A real source database for the detection tests: SQLite (always) or PostgreSQL (when
 * `HIGHWATER_TEST_PG_URL` is set, in a unique schema dropped on close), with the connection
 * entries a config folder needs to reach it.
 */
export type EngineName = 'sqlite' | 'postgres';
export const ENGINES: readonly EngineName[] = ['sqlite', 'postgres'];

const PG_URL = process.env.HIGHWATER_TEST_PG_URL;
/** App setting the PostgreSQL password is read from, when the URL carries one. */
const PG_PASSWORD_SETTING = 'HW_DETECT_TEST_PG_PASSWORD';

/** `describe` for an engine, or `describe.skip` with a printed notice when it is not available here. */
export function describeEngine(name: EngineName): jest.Describe {
  if (name === 'postgres' && !PG_URL) {
    console.log('PostgreSQL detection tests skipped: set HIGHWATER_TEST_PG_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run them');
    return describe.skip;
  }
  return describe;
}

/** A `connections` entry of a config folder. */
export interface ConnectionEntry {
  name: string;
  type: string;
  settings: Record<string, unknown>;
  secrets?: Record<string, string>;
}

export interface SourceDb {
  engine: EngineName;
  /** Column types for test tables. */
  types: { timestamp: string; boolean: string };
  exec(sql: string): Promise<void>;
  /** Rows of a query (test assertions). */
  select(sql: string): Promise<Array<Record<string, unknown>>>;
  insert(table: string, rows: Array<Record<string, unknown>>): Promise<void>;
  /** A connection to this database. */
  connection(name: string): ConnectionEntry;
  /** A connection of the same type whose system is down (missing file / nothing listening). */
  downConnection(name: string): Promise<ConnectionEntry>;
  /** Secrets the connections need (pass as the runtime's `env`). */
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

function insertSql(table: string, row: Record<string, unknown>, placeholder: (i: number) => string): string {
  const cols = Object.keys(row);
  return `INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map((_, i) => placeholder(i)).join(', ')})`;
}

async function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Opens the engine's database; SQLite lives in `dir` (removed by the caller). */
export async function openSourceDb(engine: EngineName, dir: string): Promise<SourceDb> {
  if (engine === 'sqlite') {
    const file = path.join(dir, 'source.db');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    return {
      engine,
      types: { timestamp: 'TEXT', boolean: 'INTEGER' },
      exec: async (sql) => void db.exec(sql),
      select: async (sql) => db.prepare(sql).all() as Array<Record<string, unknown>>,
      insert: async (table, rows) => {
        const insertAll = db.transaction(() => {
          for (const row of rows) {
            const values = Object.values(row).map((v) => (typeof v === 'boolean' ? Number(v) : v));
            db.prepare(insertSql(table, row, () => '?')).run(...values);
          }
        });
        insertAll();
      },
      connection: (name) => ({ name, type: 'sqlite', settings: { file } }),
      downConnection: async (name) => {
        const missing = path.join(dir, `${name}-missing.db`);
        fs.rmSync(missing, { force: true });
        return { name, type: 'sqlite', settings: { file: missing } };
      },
      env: {},
      close: async () => void db.close(),
    };
  }

  const url = new URL(PG_URL ?? '');
  const schema = `hw_detect_${process.pid}_${randomBytes(4).toString('hex')}`;
  const client = new Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}`);
  const password = decodeURIComponent(url.password);
  const settings = (port: number) => ({
    host: url.hostname,
    port,
    database: decodeURIComponent(url.pathname.slice(1)) || 'postgres',
    user: decodeURIComponent(url.username) || 'postgres',
    schema,
  });
  const secrets = password ? { password: PG_PASSWORD_SETTING } : undefined;
  return {
    engine,
    types: { timestamp: 'timestamptz', boolean: 'boolean' },
    exec: async (sql) => void (await client.query(sql)),
    select: async (sql) => (await client.query(sql)).rows,
    insert: async (table, rows) => {
      await client.query('BEGIN');
      for (const row of rows) await client.query(insertSql(table, row, (i) => `$${i + 1}`), Object.values(row));
      await client.query('COMMIT');
    },
    connection: (name) => ({ name, type: 'postgres', settings: settings(Number(url.port || 5432)), ...(secrets ? { secrets } : {}) }),
    downConnection: async (name) => ({ name, type: 'postgres', settings: settings(await closedPort()), ...(secrets ? { secrets } : {}) }),
    env: password ? { [PG_PASSWORD_SETTING]: password } : {},
    close: async () => {
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    },
  };
}
