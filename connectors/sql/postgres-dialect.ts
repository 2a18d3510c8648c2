import { Pool, type PoolClient, types } from 'pg';
import { classifyError } from '../base/error-classification';
import { bindCommon, type SqlDatabase, type SqlDialect, type SqlRow, type SqlTransaction } from './dialect';
import { POSTGRES_ERROR_RULES, postgresErrorCode } from './postgres-errors';
import { jsonDocumentOf } from '../../src/model/json-text';
import type { WatermarkType } from '../../src/model/watermark-value';

const TIMESTAMPTZ = 1184;
const TIMESTAMP = 1114;
const DATE = 1082;
const JSON_OID = 114;
const JSONB = 3802;
const TIMESTAMP_TEXT = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?)(?:\+00(?::?00)?)?$/;

/**
 * A timestamp as PostgreSQL writes it in a UTC session (`2026-01-02 03:04:05.123456+00`) as
 * ISO 8601 UTC with every fraction digit kept; `timestamp` without time zone counts as UTC.
 * Anything else (`infinity`, BC dates) stays as written.
 */
export function normalizePostgresTimestamp(text: string): string {
  const match = TIMESTAMP_TEXT.exec(text);
  return match ? `${match[1]}T${match[2]}Z` : text;
}

/** `$n` placeholders; watermark parameters are untyped text, so PostgreSQL types them as the column. */
export function postgresDialect(defaultSchema?: string): SqlDialect {
  return {
    kind: 'postgres',
    defaultSchema,
    placeholder: (index) => `$${index}`,
    bindValue: bindCommon,
    watermarkParameter(type: WatermarkType, canonical: string) {
      // PostgreSQL keeps microseconds and would round a 7th digit up: cut it (towards the past).
      if (type === 'datetime') return canonical.replace(/^(.*\.\d{6})\d*Z$/, '$1Z');
      return canonical;
    },
    functionCall: (fn, args) => `SELECT * FROM ${fn}(${args.map((a) => `${a.name} => ${a.placeholder}`).join(', ')})`,
  };
}

/** Connection settings of the pool (no SDK types leave this file). */
export interface PostgresOptions {
  connectionString?: string;
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  password?: string;
  /** Require TLS (certificate verified). Default false. */
  ssl?: boolean;
  schema?: string;
  /** Most connections at once (`connection.maxConcurrency`). Default 8. */
  maxConnections?: number;
  connectionName: string;
  /** Removes secret values from driver messages. */
  redact: (text: string) => string;
  warn?: (message: string) => void;
}

/**
 * A pg pool, created on first use. Sessions run in UTC and timestamps/dates are read as text
 * (see {@link normalizePostgresTimestamp}), so microseconds survive into change trackers;
 * `json`/`jsonb` values are parsed only when every number in them is exact as a JS number, else
 * kept as their exact text (`jsonDocumentOf`). The parsers are this pool's own: the global pg
 * types, which other pools share, stay as they are.
 */
export class PostgresDatabase implements SqlDatabase {
  readonly dialect: SqlDialect;
  private pool: Pool | undefined;

  /** Streams open now (see {@link stream}). */
  private streams = 0;

  constructor(private readonly options: PostgresOptions) {
    this.dialect = postgresDialect(options.schema);
  }

  /**
   * See {@link SqlDatabase.stream}. At most half the pool streams at once: a stream's caller may
   * wait, between batches, for statements on other connections (resolver lookups, the
   * processing of what it sent), which must find one free. A pool of one never streams.
   */
  stream(sql: string, params: readonly unknown[], batchSize: number, operation: string): AsyncIterable<SqlRow[]> | undefined {
    if (this.streams >= Math.floor((this.options.maxConnections ?? 8) / 2)) return undefined;
    this.streams++;
    return this.cursor(sql, params, batchSize, operation);
  }

  async query(sql: string, params: readonly unknown[], operation: string): Promise<SqlRow[]> {
    try {
      const result = await this.open().query<SqlRow>({ text: sql, values: [...params] });
      return result.rows;
    } catch (err) {
      throw this.classify(err, operation);
    }
  }

  /**
   * `work` in one transaction on one pooled client (READ COMMITTED). Any error rolls back and
   * rejects, classified; a client whose ROLLBACK failed (connection lost) is discarded.
   */
  async transaction<T>(work: (tx: SqlTransaction) => Promise<T>, operation: string): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.open().connect();
    } catch (err) {
      throw this.classify(err, operation);
    }
    const tx: SqlTransaction = {
      query: async (sql, params, op) => {
        try {
          return (await client.query<SqlRow>({ text: sql, values: [...params] })).rows;
        } catch (err) {
          throw this.classify(err, op);
        }
      },
    };
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(tx);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      throw this.classify(err, operation);
    } finally {
      client.release(broken);
    }
  }

  /**
   * `DECLARE … CURSOR` in a `READ ONLY` transaction (no transaction id, so it holds back no
   * other reader's horizon; its snapshot does hold back vacuum while the caller reads), then
   * `FETCH batchSize` until a batch comes back short. Stopping early rolls back; the connection
   * goes back to the pool either way (discarded when its ROLLBACK failed).
   */
  private async *cursor(sql: string, params: readonly unknown[], batchSize: number, operation: string): AsyncGenerator<SqlRow[]> {
    let client: PoolClient;
    try {
      client = await this.open().connect();
    } catch (err) {
      this.streams--;
      throw this.classify(err, operation);
    }
    const size = Math.max(1, Math.trunc(batchSize));
    let open = false;
    let broken: Error | undefined;
    try {
      await client.query('BEGIN READ ONLY');
      open = true;
      await client.query({ text: `DECLARE highwater_rows NO SCROLL CURSOR FOR ${sql}`, values: [...params] });
      for (;;) {
        const rows = (await client.query<SqlRow>(`FETCH ${size} FROM highwater_rows`)).rows;
        if (rows.length > 0) yield rows;
        if (rows.length < size) break;
      }
      await client.query('COMMIT');
      open = false;
    } catch (err) {
      throw this.classify(err, operation);
    } finally {
      if (open) await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      client.release(broken);
      this.streams--;
    }
  }

  private classify(err: unknown, operation: string) {
    return classifyError(err, POSTGRES_ERROR_RULES, {
      codeOf: postgresErrorCode,
      operation: `postgres connection "${this.options.connectionName}": ${operation}`,
      redact: this.options.redact,
    });
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.end();
  }

  private open(): Pool {
    if (!this.pool) {
      const o = this.options;
      const pool = new Pool({
        connectionString: o.connectionString,
        host: o.host,
        port: o.port,
        database: o.database,
        user: o.user,
        password: o.password,
        ssl: o.ssl ? { rejectUnauthorized: true } : undefined,
        max: o.maxConnections ?? 8,
        options: '-c TimeZone=UTC',
        application_name: 'highwater',
        connectionTimeoutMillis: 15_000,
        idleTimeoutMillis: 30_000,
        types: {
          getTypeParser: (oid: number, format?: 'text' | 'binary') => {
            if (oid === TIMESTAMPTZ || oid === TIMESTAMP) return normalizePostgresTimestamp;
            if (oid === DATE) return (text: string) => text;
            if (oid === JSON_OID || oid === JSONB) return jsonDocumentOf;
            return types.getTypeParser(oid, format);
          },
        },
      });
      // An idle client losing its server must not crash the process; the next query reports it.
      pool.on('error', (err) => o.warn?.(`postgres connection "${o.connectionName}": idle client error: ${o.redact(err.message)}`));
      this.pool = pool;
    }
    return this.pool;
  }
}
