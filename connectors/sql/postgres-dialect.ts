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

  constructor(private readonly options: PostgresOptions) {
    this.dialect = postgresDialect(options.schema);
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
