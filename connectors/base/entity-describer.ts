import type { ConnectorContext } from './connector-context';

/**
 * An optional capability of a connection type: what one of its entities (a table, an entity set)
 * looks like — its columns with their types, and which column sets are unique. `highwater check`
 * reads it to find, before anything runs, the table, column, watermark type and target key
 * problems that otherwise show only at run time (or as dead letters).
 */

/** A column's type as far as the checks need it; `other` when the connector cannot tell. */
export type ColumnKind = 'text' | 'integer' | 'decimal' | 'float' | 'datetime' | 'date' | 'boolean' | 'binary' | 'other';

export interface DescribedColumn {
  name: string;
  /** The type as the system declares it (`INTEGER`, `timestamp with time zone`, `Edm.String`); '' when none. */
  type: string;
  kind: ColumnKind;
}

export interface EntityDescription {
  /** By name as the system spells it (compared exactly: the connectors quote names as written). */
  columns: ReadonlyMap<string, DescribedColumn>;
  /**
   * Column sets with a uniqueness guarantee: the primary key and unique indexes (SQL), the key
   * (OData). An upsert's ON CONFLICT needs one that equals the target key.
   */
  uniqueKeys: ReadonlyArray<readonly string[]>;
  /**
   * Change trackers a job's watermark may name beyond the columns, by name (PostgreSQL: the
   * `xmin` system column, read as a transaction id). Absent: none.
   */
  trackers?: ReadonlyMap<string, DescribedColumn>;
}

/** Describes the entities of one open connection. */
export interface EntityDescriber {
  /** What the connection's entities are called in messages: `table`, `entity set`. */
  readonly entityWord: string;
  /**
   * Connects (or reads the service document): fails the way the connector's open would.
   * @throws the connector's classified error (ConfigError, TransientError, …).
   */
  connect(): Promise<void>;
  /** The entity, or undefined when the connection has none of that name. */
  describe(entity: string): Promise<EntityDescription | undefined>;
  /**
   * One stored non-null value of `column`, for systems whose declared type does not decide what
   * the values are (SQLite stores dates as text in any column). Absent: not needed.
   */
  sample?(entity: string, column: string): Promise<unknown>;
  close(): Promise<void>;
}

/** Opens a describer on a connection; the same context a connector gets. */
export type DescriberFactory = (ctx: ConnectorContext) => EntityDescriber;

/**
 * A connection type's describer, or why it has none: the checks it skips are then named in a
 * notice (never skipped silently).
 */
export type DescriberEntry = { open: DescriberFactory } | { skipped: string };
