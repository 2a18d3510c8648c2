import { createPool, type FieldPacket, type Pool, type PoolConnection, type PoolOptions } from 'mysql2/promise';
import { classifyError } from '../base/error-classification';
import { ConfigError } from '../../src/platform/errors';
import { bindCommon, type SqlDatabase, type SqlDialect, type SqlRow, type SqlTransaction } from './dialect';
import { MYSQL_ERROR_RULES, mysqlErrorCode } from './mysql-errors';
import { mysqlDateTimeText, mysqlTextToIso } from './mysql-values';
import { jsonDocumentOf } from '../../src/model/json-text';
import type { WatermarkType } from '../../src/model/watermark-value';

/**
 * Every session runs with these settings, set before its first statement: the shared SQL quotes
 * identifiers with `"` (ANSI_QUOTES); a value a column cannot hold is refused, not cut
 * (STRICT_ALL_TABLES, no zero dates); backslash escapes stay on (the driver escapes bound text
 * with them); `TIMESTAMP` columns and `NOW()` are read and written in UTC.
 */
const MYSQL_SESSION_SQL =
  "SET SESSION sql_mode = 'ANSI_QUOTES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION', " +
  "time_zone = '+00:00', character_set_client = utf8mb4, character_set_connection = utf8mb4, character_set_results = utf8mb4";

/** MySQL's column types of date-time values on the wire (text protocol): DATETIME, TIMESTAMP. */
const DATETIME_TYPES = new Set([7, 12, 17, 18]);

/** MySQL's JSON column type on the wire; MariaDB's JSON is LONGTEXT, marked `json` in its extended metadata. */
const JSON_TYPE = 245;

/** Per row read: its date-time columns, whose text {@link SqlDialect.messageRow} turns into ISO 8601 UTC. */
const DATETIME_COLUMNS = new WeakMap<SqlRow, readonly string[]>();

/** `?` placeholders; date-time watermarks in the column's own text form, cut to microseconds. */
export function mysqlDialect(): SqlDialect {
  return {
    kind: 'mysql',
    placeholder: () => '?',
    bindValue: bindCommon,
    watermarkParameter(type: WatermarkType, canonical: string, sample: unknown) {
      // A DATETIME / TIMESTAMP column reads as `YYYY-MM-DD hh:mm:ss[.ffffff]`: compare in that form (MySQL would round a 7th digit up).
      if (type === 'datetime' && typeof sample === 'string' && mysqlTextToIso(sample) !== undefined) return mysqlDateTimeText(canonical) ?? canonical;
      return canonical;
    },
    messageRow(row: SqlRow): SqlRow {
      const columns = DATETIME_COLUMNS.get(row);
      if (!columns || columns.length === 0) return row;
      const copy = { ...row };
      for (const column of columns) {
        const value = copy[column];
        if (typeof value === 'string') copy[column] = mysqlTextToIso(value) ?? value;
      }
      return copy;
    },
  };
}

/** Isolation levels of {@link MysqlDatabase.transaction}. */
export type MysqlIsolation = 'REPEATABLE READ' | 'READ COMMITTED';

/** Connection settings of the pool (no SDK types leave this file). */
export interface MysqlOptions {
  /** `mysql://user:password@host:port/database`. */
  connectionString?: string;
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  password?: string;
  /** Require TLS (certificate verified). Default false. */
  ssl?: boolean;
  /** Most connections at once (`connection.maxConcurrency`). Default 8. */
  maxConnections?: number;
  connectionName: string;
  /** Removes secret values from driver messages. */
  redact: (text: string) => string;
}

/**
 * A mysql2 pool, created on first use. Values are read exactly: BIGINT and DECIMAL as digit text,
 * date-times as the server writes them (in a UTC session), BLOB as bytes, JSON read as its text
 * and then parsed only when every number in it is exact as a JS number, else kept as that text
 * (`jsonDocumentOf`), as PostgreSQL's `json`/`jsonb` are.
 * Statements go as text with the driver's escaping of bound values (`?`): a batch's statements
 * differ in their number of values, and server-side prepared statements would fill the server's
 * statement cache with them.
 */
export class MysqlDatabase implements SqlDatabase {
  readonly dialect: SqlDialect = mysqlDialect();
  private pool: Pool | undefined;
  /** Connections whose session settings are in place. */
  private readonly prepared = new WeakSet<object>();

  constructor(private readonly options: MysqlOptions) {}

  async query(sql: string, params: readonly unknown[], operation: string): Promise<SqlRow[]> {
    const conn = await this.connect(operation);
    try {
      return await this.run(conn, sql, params, operation);
    } finally {
      conn.release();
    }
  }

  /**
   * `work` in one transaction on one pooled connection. Any error rolls back and rejects,
   * classified; a connection whose ROLLBACK failed is destroyed.
   * @param isolation REPEATABLE READ (the default) also locks the gap of a key without a row on a
   *   locking read, so no other writer inserts it meanwhile, and such gap locks of two
   *   transactions block each other's inserts (a deadlock); READ COMMITTED locks existing rows only.
   */
  async transaction<T>(work: (tx: SqlTransaction) => Promise<T>, operation: string, isolation: MysqlIsolation = 'REPEATABLE READ'): Promise<T> {
    const conn = await this.connect(operation);
    const tx: SqlTransaction = { query: (sql, params, op) => this.run(conn, sql, params, op) };
    let broken = false;
    try {
      await conn.query(`SET TRANSACTION ISOLATION LEVEL ${isolation === 'READ COMMITTED' ? 'READ COMMITTED' : 'REPEATABLE READ'}`);
      await conn.query('START TRANSACTION');
      const result = await work(tx);
      await conn.query('COMMIT');
      return result;
    } catch (err) {
      await conn.query('ROLLBACK').catch(() => (broken = true));
      throw this.classify(err, operation);
    } finally {
      if (broken) conn.destroy();
      else conn.release();
    }
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.end();
  }

  private async run(conn: PoolConnection, sql: string, params: readonly unknown[], operation: string): Promise<SqlRow[]> {
    try {
      const [result, fields] = await conn.query({ sql, values: [...params] });
      if (!Array.isArray(result)) return [];
      const rows = result as SqlRow[];
      const datetimes = datetimeColumns(fields);
      if (datetimes.length > 0) for (const row of rows) DATETIME_COLUMNS.set(row, datetimes);
      const documents = jsonColumns(fields);
      if (documents.length > 0) {
        for (const row of rows) for (const column of documents) if (typeof row[column] === 'string') row[column] = jsonDocumentOf(row[column]);
      }
      return rows;
    } catch (err) {
      throw this.classify(err, operation);
    }
  }

  /** A pooled connection with the session settings in place. */
  private async connect(operation: string): Promise<PoolConnection> {
    let conn: PoolConnection;
    try {
      conn = await this.open().getConnection();
    } catch (err) {
      throw this.classify(err, operation);
    }
    if (this.prepared.has(conn.connection)) return conn;
    try {
      await conn.query(MYSQL_SESSION_SQL);
      this.prepared.add(conn.connection);
      return conn;
    } catch (err) {
      conn.destroy();
      throw this.classify(err, `${operation} (session settings)`);
    }
  }

  private classify(err: unknown, operation: string) {
    return classifyError(err, MYSQL_ERROR_RULES, {
      codeOf: mysqlErrorCode,
      operation: `mysql connection "${this.options.connectionName}": ${operation}`,
      redact: this.options.redact,
    });
  }

  private open(): Pool {
    if (!this.pool) {
      const o = this.options;
      const options: PoolOptions = {
        host: o.host,
        port: o.port,
        database: o.database,
        user: o.user,
        password: o.password,
        ssl: o.ssl ? { rejectUnauthorized: true } : undefined,
        connectionLimit: o.maxConnections ?? 8,
        charset: 'utf8mb4',
        timezone: 'Z',
        dateStrings: true,
        supportBigNumbers: true,
        bigNumberStrings: true,
        jsonStrings: true,
        decimalNumbers: false,
        multipleStatements: false,
        connectTimeout: 15_000,
        idleTimeout: 30_000,
        enableKeepAlive: true,
      };
      if (o.connectionString !== undefined) checkConnectionString(o.connectionString, o.connectionName);
      try {
        this.pool = o.connectionString ? createPool({ ...options, uri: o.connectionString }) : createPool(options);
      } catch (err) {
        // Options the driver refuses (an unknown `?ssl=` profile in the URL): fixed in the settings. No cause: it may hold the URL.
        throw new ConfigError(`mysql connection "${o.connectionName}": the driver refuses the connection settings: ${o.redact(err instanceof Error ? err.message : String(err))}`);
      }
    }
    return this.pool;
  }
}

/**
 * A connection string must be a `mysql://` (or `mariadb://`) URL. Checked before the driver sees
 * it: the driver's own error for a malformed URL carries the whole text, password included.
 * @throws ConfigError naming the secret, never its value.
 */
function checkConnectionString(text: string, connectionName: string): void {
  let protocol: string | undefined;
  try {
    protocol = new URL(text).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'mysql:' && protocol !== 'mariadb:') {
    throw new ConfigError(`mysql connection "${connectionName}": secrets.connectionString is not a mysql://user:password@host:port/database URL`);
  }
}

/** The JSON columns of a result: MySQL's JSON type, MariaDB's LONGTEXT whose extended metadata says `json`. */
function jsonColumns(fields: FieldPacket[] | undefined): string[] {
  if (!Array.isArray(fields)) return [];
  return fields.filter((f) => f.columnType === JSON_TYPE || f.extendedFormat === 'json').map((f) => f.name);
}

function datetimeColumns(fields: FieldPacket[] | undefined): string[] {
  if (!Array.isArray(fields)) return [];
  return fields.filter((f) => typeof f.columnType === 'number' && DATETIME_TYPES.has(f.columnType)).map((f) => f.name);
}
