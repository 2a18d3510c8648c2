import path from 'node:path';
import type { ConnectorContext } from '../base/connector-context';
import { contextClock, readSecret, secretRedactor } from '../base/connector-context';
import type { ConnectorFactory } from '../base/registry';
import { ConfigError } from '../../src/platform/errors';
import type { SqlDatabase } from './dialect';
import type { PostgresDatabase } from './postgres-dialect';
import type { MysqlDatabase } from './mysql-dialect';
import type { SqliteDatabase } from './sqlite-dialect';
import {
  type MysqlSettings,
  mysqlSettingsSchema,
  type PostgresSettings,
  postgresSettingsSchema,
  type SqliteSettings,
  sqliteSettingsSchema,
  validateMysqlSettings,
  validatePostgresSettings,
  validateSqliteSettings,
} from './sql-settings';
import { xminJobProblems } from './postgres-xmin';

/*
 * The implementations load when a connection is first opened, not with this module: validating a
 * configuration needs only `sql-settings`, and a host with only sqlite connections never loads
 * `pg` (nor one with only postgres connections better-sqlite3, nor mysql2 unless a mysql connection opens). `require`, not `import()`,
 * because opening a connector is synchronous.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const load = {
  source: () => (require('./sql-source') as typeof import('./sql-source')).SqlSource,
  outbox: () => (require('./outbox-source') as typeof import('./outbox-source')).OutboxSource,
  outboxDialect: {
    sqlite: () => (require('./outbox-sqlite') as typeof import('./outbox-sqlite')).sqliteOutboxDialect,
    postgres: () => (require('./outbox-postgres') as typeof import('./outbox-postgres')).postgresOutboxDialect,
    mysql: () => (require('./outbox-mysql') as typeof import('./outbox-mysql')).mysqlOutboxDialect,
  },
  target: () => (require('./sql-target') as typeof import('./sql-target')).SqlTarget,
  sqlite: (connectionName: string) => {
    try {
      return (require('./sqlite-dialect') as typeof import('./sqlite-dialect')).SqliteDatabase;
    } catch (err) {
      throw missingSqliteModule(err, connectionName) ?? err;
    }
  },
  postgres: () => (require('./postgres-dialect') as typeof import('./postgres-dialect')).PostgresDatabase,
  mysql: () => (require('./mysql-dialect') as typeof import('./mysql-dialect')).MysqlDatabase,
};
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * The clear error for an install without better-sqlite3 (the Functions deployment package leaves
 * the native module out: a database file on a Functions instance is neither shared between
 * instances nor kept across restarts, so `sqlite` connections run on the local host only).
 */
function missingSqliteModule(err: unknown, connectionName: string): ConfigError | undefined {
  const e = err as NodeJS.ErrnoException;
  if (e?.code !== 'MODULE_NOT_FOUND' || !/better-sqlite3/.test(String(e.message))) return undefined;
  return new ConfigError(
    `connection "${connectionName}" (sqlite): better-sqlite3 is not installed here (the Functions deployment package leaves it out): ` +
      'sqlite connections run on the local host only; use postgres, odata, dataverse or businesscentral on Azure',
    { cause: err },
  );
}

export function openSqlite(ctx: ConnectorContext): SqliteDatabase {
  const settings = ctx.connection.settings as unknown as SqliteSettings;
  return new (load.sqlite(ctx.connection.name))({
    file: path.resolve(ctx.configDir, settings.file),
    busyTimeoutMs: settings.busyTimeoutMs,
    groupCommit: settings.groupCommit,
    synchronous: settings.synchronous,
    cacheSizeKb: settings.cacheSizeKb,
    connectionName: ctx.connection.name,
  });
}

/** What a database server connection needs, shared by `postgres` and `mysql`: its secrets read once, and redacted. */
function serverOptions(ctx: ConnectorContext, settings: PostgresSettings | MysqlSettings) {
  const password = readSecret(ctx, 'password');
  const connectionString = readSecret(ctx, 'connectionString');
  return {
    connectionString,
    host: settings.host,
    port: settings.port,
    database: settings.database,
    user: settings.user,
    password,
    ssl: settings.ssl,
    maxConnections: ctx.connection.maxConcurrency,
    connectionName: ctx.connection.name,
    redact: secretRedactor([password, connectionString]),
  };
}

export function openPostgres(ctx: ConnectorContext): PostgresDatabase {
  const settings = ctx.connection.settings as PostgresSettings;
  return new (load.postgres())({ ...serverOptions(ctx, settings), schema: settings.schema, warn: ctx.warn });
}

export function openMysql(ctx: ConnectorContext): MysqlDatabase {
  return new (load.mysql())(serverOptions(ctx, ctx.connection.settings as MysqlSettings));
}

/**
 * The connection's source: its outbox when `settings.outbox` is set, else watermark reads of the
 * mapping's table. Resolvers of an outbox job look values up with the plain SQL source. A SQL
 * connector type of its own (mysql) opens its source through this too, with its `kind`.
 */
function openSqlSource(ctx: ConnectorContext, db: SqlDatabase, kind: keyof typeof load.outboxDialect) {
  const plain = new (load.source())(db, contextClock(ctx), ctx.warn);
  const outbox = (ctx.connection.settings as Partial<SqliteSettings | PostgresSettings>).outbox;
  if (!outbox) return plain;
  return new (load.outbox())(db, outbox, load.outboxDialect[kind](), plain, contextClock(ctx), ctx.connection.name);
}

/** `sqlite`: a database file (better-sqlite3); source (watermark reads or an outbox) and target. */
export const sqliteConnectorFactory: ConnectorFactory = {
  type: 'sqlite',
  validateSettings: validateSqliteSettings,
  validateSourceJob: xminJobProblems('sqlite'),
  settingsSchema: sqliteSettingsSchema,
  createSource: (ctx) => openSqlSource(ctx, openSqlite(ctx), 'sqlite'),
  createTarget: (ctx) =>
    new (load.target())(openSqlite(ctx), { connectionName: ctx.connection.name, versionField: (ctx.connection.settings as Partial<SqliteSettings>).versionField }),
};

/** `postgres`: a PostgreSQL database (pg pool of `connection.maxConcurrency`); source and target. */
const postgresConnectorFactory: ConnectorFactory = {
  type: 'postgres',
  validateSettings: validatePostgresSettings,
  validateSourceJob: xminJobProblems('postgres'),
  settingsSchema: postgresSettingsSchema,
  createSource: (ctx) => openSqlSource(ctx, openPostgres(ctx), 'postgres'),
  createTarget: (ctx) =>
    new (load.target())(openPostgres(ctx), { connectionName: ctx.connection.name, versionField: (ctx.connection.settings as PostgresSettings).versionField }),
};

/** `mysql`: a MariaDB or MySQL database (mysql2 pool of `connection.maxConcurrency`); source (watermark reads or an outbox) and target. */
const mysqlConnectorFactory: ConnectorFactory = {
  type: 'mysql',
  validateSettings: validateMysqlSettings,
  validateSourceJob: xminJobProblems('mysql'),
  settingsSchema: mysqlSettingsSchema,
  createSource: (ctx) => openSqlSource(ctx, openMysql(ctx), 'mysql'),
  createTarget: (ctx) => new (load.target())(openMysql(ctx), { connectionName: ctx.connection.name, versionField: (ctx.connection.settings as MysqlSettings).versionField }),
};

/** The SQL connector types, for `new ConnectorRegistry([...sqlConnectorFactories, …])`. */
export const sqlConnectorFactories: readonly ConnectorFactory[] = [sqliteConnectorFactory, postgresConnectorFactory, mysqlConnectorFactory];
