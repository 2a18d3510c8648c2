import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { createConnection as createMysqlConnection } from 'mysql2/promise';
import { ConnectorRegistry } from '../../../../connectors/base/registry';
import type { SourceConnector } from '../../../../connectors/base/source-connector';
import type { TargetConnector } from '../../../../connectors/base/target-connector';
import type { SingleTarget } from '../../../../connectors/base/apply-one-by-one';
import { singleTarget } from '../../../support/single-target';
import { sqlConnectorFactories } from '../../../../connectors/sql/sql-connectors';
import type { Connection } from '../../../../src/model/connection';
import type { Clock } from '../../../../src/platform/clock';
import type { SourcePage } from '../../../../connectors/base/source-connector';
import type { Job } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import type { QueueMessage } from '../../../../src/model/queue-message';
import type { WatermarkValue } from '../../../../src/model/watermark-value';

export type EngineName = 'sqlite' | 'postgres' | 'mysql';
export const ENGINE_NAMES: EngineName[] = ['sqlite', 'postgres', 'mysql'];
export const PG_URL = process.env.HIGHWATER_TEST_PG_URL;
export const MYSQL_URL = process.env.HIGHWATER_TEST_MYSQL_URL;

/** `describe` for an engine, or `describe.skip` with a printed notice when it is not available here. */
export function describeEngine(name: EngineName): jest.Describe {
  if (name === 'postgres' && !PG_URL) {
    console.log('PostgreSQL connector tests skipped: set HIGHWATER_TEST_PG_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run them');
    return describe.skip;
  }
  if (name === 'mysql' && !MYSQL_URL) {
    console.log('MariaDB/MySQL connector tests skipped: set HIGHWATER_TEST_MYSQL_URL (e.g. mysql://root@127.0.0.1:3306/test) to run them');
    return describe.skip;
  }
  return describe;
}

/** A real database with a unique, throw-away namespace, and connectors opened through the registry. */
export interface SqlTestEngine {
  name: EngineName;
  /** Column type of datetime watermarks (`TEXT` with ISO 8601 on SQLite). */
  timestampType: string;
  booleanType: string;
  /** ISO 8601 text as a literal of {@link timestampType} takes it (MySQL: UTC without offset). */
  timestamp(iso: string): string;
  /** Runs test DDL/DML (statements separated by `;`). */
  exec(sql: string): Promise<void>;
  insert(table: string, rows: Array<Record<string, unknown>>): Promise<void>;
  select(sql: string): Promise<Array<Record<string, unknown>>>;
  connection(settings?: Record<string, unknown>): Connection;
  /** `clock`: the connector's time (leases, detection time). Default: the system clock. */
  source(connection?: Connection, clock?: Pick<Clock, 'now' | 'sleep'>): SourceConnector;
  target(connection?: Connection): TargetConnector & SingleTarget;
  close(): Promise<void>;
}

const registry = new ConnectorRegistry(sqlConnectorFactories);

export async function openEngine(name: EngineName): Promise<SqlTestEngine> {
  const opened: Array<SourceConnector | TargetConnector> = [];
  const track = <T extends SourceConnector | TargetConnector>(c: T): T => {
    opened.push(c);
    return c;
  };
  const common = (conn: () => Connection, resolveSecret: (n: string) => string | undefined, configDir: string) => ({
    connection: (settings?: Record<string, unknown>) => ({ ...conn(), settings: { ...conn().settings, ...settings } }),
    source: (c?: Connection, clock?: Pick<Clock, 'now' | 'sleep'>) => track(registry.createSource({ connection: c ?? conn(), resolveSecret, configDir, ...(clock ? { clock } : {}) })),
    target: (c?: Connection) => track(singleTarget(registry.createTarget({ connection: c ?? conn(), resolveSecret, configDir }))),
  });
  const closeConnectors = () => Promise.all(opened.map((c) => c.close()));

  if (name === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-sql-'));
    const db = new Database(path.join(dir, 'test.db'));
    const conn = (): Connection => ({ name: 'sqlite-test', type: 'sqlite', settings: { file: 'test.db' }, secrets: {}, maxConcurrency: 4 });
    return {
      name, timestampType: 'TEXT', booleanType: 'INTEGER', timestamp: (iso) => iso,
      exec: async (sql) => void db.exec(sql),
      insert: async (table, rows) => {
        for (const row of rows) {
          const cols = Object.keys(row);
          const values = Object.values(row).map((v) => (typeof v === 'boolean' ? Number(v) : v));
          db.prepare(`INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(...values);
        }
      },
      select: async (sql) => db.prepare(sql).all() as Array<Record<string, unknown>>,
      ...common(conn, () => undefined, dir),
      close: async () => {
        await closeConnectors();
        db.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  if (name === 'mysql') return openMysqlEngine(common, closeConnectors);

  const schema = `hw_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const client = new Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}; SET TIME ZONE 'UTC'`);
  const conn = (): Connection => ({ name: 'pg-test', type: 'postgres', settings: { schema }, secrets: { connectionString: 'HW_TEST_PG_URL' }, maxConcurrency: 4 });
  return {
    name, timestampType: 'timestamptz', booleanType: 'boolean', timestamp: (iso) => iso,
    exec: async (sql) => void (await client.query(sql)),
    insert: async (table, rows) => {
      for (const row of rows) {
        const cols = Object.keys(row);
        await client.query(`INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})`, Object.values(row));
      }
    },
    select: async (sql) => (await client.query(sql)).rows,
    ...common(conn, (n) => (n === 'HW_TEST_PG_URL' ? PG_URL : undefined), os.tmpdir()),
    close: async () => {
      await closeConnectors();
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    },
  };
}

type Common = (conn: () => Connection, resolveSecret: (n: string) => string | undefined, configDir: string) => Pick<SqlTestEngine, 'connection' | 'source' | 'target'>;

/**
 * MariaDB / MySQL: a throw-away database on the server at `HIGHWATER_TEST_MYSQL_URL`; the test's
 * own session quotes as the connector's does (ANSI_QUOTES) and runs in UTC.
 */
async function openMysqlEngine(common: Common, closeConnectors: () => Promise<unknown>): Promise<SqlTestEngine> {
  const database = `hw_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const url = new URL(String(MYSQL_URL));
  const admin = await createMysqlConnection({ uri: url.toString(), multipleStatements: true, supportBigNumbers: true, bigNumberStrings: true, dateStrings: true, jsonStrings: true, timezone: 'Z' });
  await admin.query(`CREATE DATABASE ${database} CHARACTER SET utf8mb4; USE ${database}; SET SESSION sql_mode = CONCAT(@@sql_mode, ',ANSI_QUOTES'), time_zone = '+00:00'`);
  url.pathname = `/${database}`;
  const conn = (): Connection => ({ name: 'mysql-test', type: 'mysql', settings: {}, secrets: { connectionString: 'HW_TEST_MYSQL_URL' }, maxConcurrency: 4 });
  return {
    name: 'mysql', timestampType: 'datetime(6)', booleanType: 'boolean', timestamp: (iso) => String(mysqlTestValue(iso)),
    exec: async (sql) => void (await admin.query(mysqlDdl(sql))),
    insert: async (table, rows) => {
      for (const row of rows) {
        const cols = Object.keys(row);
        await admin.query(`INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, Object.values(row).map(mysqlTestValue));
      }
    },
    select: async (sql) => (await admin.query(sql))[0] as Array<Record<string, unknown>>,
    ...common(conn, (n) => (n === 'HW_TEST_MYSQL_URL' ? url.toString() : undefined), os.tmpdir()),
    close: async () => {
      await closeConnectors();
      await admin.query(`DROP DATABASE ${database}`);
      await admin.end();
    },
  };
}

/**
 * The shared tests' CREATE TABLE in MySQL's words: it cannot index TEXT (keys, unique and
 * referenced columns become VARCHAR(191), the longest utf8mb4 text every index takes), and spells
 * an identity column AUTO_INCREMENT. Other statements pass as written.
 */
function mysqlDdl(sql: string): string {
  if (!/^\s*CREATE TABLE/i.test(sql)) return sql;
  return sql.replace(/\bTEXT\b/g, 'VARCHAR(191)').replace(/GENERATED ALWAYS AS IDENTITY/g, 'AUTO_INCREMENT');
}

/** ISO 8601 text as MariaDB reads it into a DATETIME (UTC, no offset); other values as they are. */
function mysqlTestValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?)\d*Z$/.exec(value);
  return match ? `${match[1]} ${match[2]}` : value;
}

/** Reads a whole run, advancing `watermark` over every change as the detection service does. */
export async function readRun(source: SourceConnector, mapping: Mapping, job: Job, watermark: WatermarkValue): Promise<{ pages: SourcePage[]; messages: QueueMessage[] }> {
  const pages: SourcePage[] = [];
  for await (const page of source.retrieveChanges(mapping, job, watermark)) pages.push(page);
  const messages = pages.flatMap((p) => p.messages);
  for (const m of messages) watermark.advance(m.changeTracker);
  return { pages, messages };
}
