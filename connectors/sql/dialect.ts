import { ConfigError } from '../../src/platform/errors';
import { fromMessageValue } from '../../src/model/exact-values';
import { JsonText } from '../../src/model/json-text';
import type { WatermarkType } from '../../src/model/watermark-value';

/** A row as the driver returns it: column name → value. */
export type SqlRow = Record<string, unknown>;

/** What differs between SQL engines; everything else is shared SQL. */
export interface SqlDialect {
  readonly kind: 'sqlite' | 'postgres' | 'mysql';
  /** Schema for unqualified entity names (PostgreSQL `settings.schema`); undefined → the engine's default. */
  readonly defaultSchema?: string;
  /** Placeholder of the `index`-th parameter (1-based): `?` or `$n`. */
  placeholder(index: number): string;
  /** A message / filter value as the driver binds it (e.g. SQLite has no booleans; JSON objects go as text). */
  bindValue(value: unknown): unknown;
  /**
   * A canonical watermark as a parameter that compares correctly with the column's stored values.
   * @param sample a value stored in the column (the run's upper bound), showing its storage format.
   * @param what names the column in configuration errors, e.g. `job "j": watermark field "modified"`.
   */
  watermarkParameter(type: WatermarkType, canonical: string, sample: unknown, what: string): unknown;
  /** `SELECT … FROM fn(args)` calling a database function with named arguments; undefined when unsupported. */
  functionCall?(fn: string, namedArguments: ReadonlyArray<{ name: string; placeholder: string }>): string;
  /**
   * A row read by a change query as its message carries it, when that differs from the driver's
   * form, which the run keeps for its bounds and paging position (MySQL: date-time text as ISO
   * 8601 UTC). Absent: the row as read.
   */
  messageRow?(row: SqlRow): SqlRow;
}

/** Runs statements on one database; every error is classified by the adapter's error table. */
export interface SqlDatabase {
  readonly dialect: SqlDialect;
  /**
   * Runs one statement with bound parameters; returns the rows of a query or of `RETURNING`.
   * @param operation what is being done, for error messages, e.g. `upsert into "customers"`.
   */
  query(sql: string, params: readonly unknown[], operation: string): Promise<SqlRow[]>;
  /**
   * Runs the statements in order until one returns rows, and returns those (or none), as one unit
   * of work where the database groups writes (SQLite: an upsert's UPDATE and, when it matched
   * nothing, its INSERT share one commit instead of two). Optional: without it, callers run the
   * statements one by one with {@link query}. Throws what {@link query} throws, for the statement
   * that failed.
   */
  firstWithRows?(statements: readonly SqlStatement[]): Promise<SqlRow[]>;
  /**
   * Runs `work` in one transaction on one connection (PostgreSQL: a pooled client) and commits;
   * any error rolls everything back and rejects, classified. Optional (the batch path).
   * @param operation what the transaction does, for error messages of BEGIN/COMMIT.
   */
  transaction?<T>(work: (tx: SqlTransaction) => Promise<T>, operation: string): Promise<T>;
  /**
   * Runs `work` synchronously inside one `BEGIN IMMEDIATE … COMMIT` (SQLite: nothing else runs
   * on the connection meanwhile) and resolves after the commit is as durable as a single write
   * would be. When `work` throws, the transaction is rolled back and the call rejects. Optional.
   */
  transactionSync?<T>(work: (tx: SqlSyncTransaction) => T, operation: string): Promise<T>;
  /**
   * The rows of one query, `batchSize` at a time, the query run once (one scan, one sort) however
   * many batches it has: a server-side cursor in a read-only transaction of its own, on a
   * connection held until the last batch is read or the caller stops iterating (the caller
   * iterates what it gets at once). Optional (a query with no index to page by: PostgreSQL
   * `xmin`); undefined when no connection can be spared now, so that held connections never
   * starve the statements the caller, or other jobs, run meanwhile: the caller pages by LIMIT.
   */
  stream?(sql: string, params: readonly unknown[], batchSize: number, operation: string): AsyncIterable<SqlRow[]> | undefined;
  close(): Promise<void>;
}

/** Statements inside {@link SqlDatabase.transaction}; errors are classified. */
export interface SqlTransaction {
  query(sql: string, params: readonly unknown[], operation: string): Promise<SqlRow[]>;
}

/** Statements inside {@link SqlDatabase.transactionSync}; errors are classified. */
export interface SqlSyncTransaction {
  /** Runs one statement; returns the rows of a query or of `RETURNING`. */
  run(sql: string, params: readonly unknown[], operation: string): SqlRow[];
  /**
   * Whether the transaction is still open. A constraint error rolls back only its statement;
   * SQLITE_FULL/IOERR/BUSY/NOMEM or an `ON CONFLICT ROLLBACK` constraint may end the whole
   * transaction, and the writes before it with it.
   */
  readonly active: boolean;
}

/** One statement with its bound parameters and what it does (for error messages). */
export interface SqlStatement {
  sql: string;
  params: readonly unknown[];
  operation: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]*$/;

/**
 * A validated, double-quoted identifier. Only plain identifiers are accepted (letters, digits,
 * `_`, `$`; not starting with a digit), so configuration can never smuggle SQL in. Quoting keeps
 * the case as written (PostgreSQL folds unquoted names to lower case: write them in lower case).
 * @param what names the configuration property in the error, e.g. `mapping "m": source.entity`.
 * @throws ConfigError for anything else.
 */
export function quoteIdentifier(name: string, what: string): string {
  if (typeof name !== 'string' || !IDENTIFIER.test(name)) {
    throw new ConfigError(`${what}: ${JSON.stringify(name)} is not a plain SQL identifier (letters, digits, _ and $, not starting with a digit)`);
  }
  return `"${name}"`;
}

/** A table (or function) name, `name` or `schema.name`; unqualified names get the dialect's default schema. */
export function quoteEntity(entity: string, dialect: SqlDialect, what: string): string {
  const parts = typeof entity === 'string' ? entity.split('.') : [];
  if (parts.length === 1 && dialect.defaultSchema) parts.unshift(dialect.defaultSchema);
  if (parts.length < 1 || parts.length > 2) throw new ConfigError(`${what}: ${JSON.stringify(entity)} is not a table name (name or schema.name)`);
  return parts.map((part) => quoteIdentifier(part, what)).join('.');
}

/** Collects bound parameters and hands out the dialect's placeholders in order. */
export class SqlParams {
  readonly values: unknown[] = [];

  constructor(private readonly dialect: SqlDialect) {}

  /** Binds `value` (converted by the dialect) and returns its placeholder. */
  add(value: unknown): string {
    this.values.push(this.dialect.bindValue(value));
    return this.dialect.placeholder(this.values.length);
  }

  /** Binds a value exactly as given (already in the driver's form). */
  addRaw(value: unknown): string {
    this.values.push(value);
    return this.dialect.placeholder(this.values.length);
  }
}

/**
 * Message values as every driver binds them: bytes (`{"$binary": …}`, see
 * `src/model/exact-values.ts`) → Buffer, a JSON document's exact text (`{"$jsonText": …}`) → that
 * text as it is, Date → ISO 8601, other objects and arrays → JSON text. Which columns may take a
 * JSON document's text is checked per engine before (postgres-exact.ts, mysql-exact.ts,
 * sqlite-columns.ts).
 */
export function bindCommon(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value !== 'object' || value === null || value instanceof Uint8Array) return value;
  if (value instanceof Date) return value.toISOString();
  const plain = fromMessageValue(value);
  if (plain instanceof JsonText) return plain.text;
  return plain instanceof Uint8Array ? plain : JSON.stringify(plain);
}
