import path from 'node:path';
import type { ConnectorContext } from '../base/connector-context';
import { readSecret, secretRedactor } from '../base/connector-context';
import type { ConnectorFactory } from '../base/registry';
import { PostgresDatabase } from './postgres-dialect';
import { SqlSource } from './sql-source';
import { SqlTarget } from './sql-target';
import { SqliteDatabase } from './sqlite-dialect';
import { type PostgresSettings, type SqliteSettings, validatePostgresSettings, validateSqliteSettings } from './sql-settings';

function clockOf(ctx: ConnectorContext): () => Date {
  const clock = ctx.clock;
  return clock ? () => clock.now() : () => new Date();
}

function openSqlite(ctx: ConnectorContext): SqliteDatabase {
  const settings = ctx.connection.settings as unknown as SqliteSettings;
  return new SqliteDatabase({
    file: path.resolve(ctx.configDir, settings.file),
    busyTimeoutMs: settings.busyTimeoutMs,
    connectionName: ctx.connection.name,
  });
}

function openPostgres(ctx: ConnectorContext): PostgresDatabase {
  const settings = ctx.connection.settings as PostgresSettings;
  const password = readSecret(ctx, 'password');
  const connectionString = readSecret(ctx, 'connectionString');
  return new PostgresDatabase({
    connectionString,
    host: settings.host,
    port: settings.port,
    database: settings.database,
    user: settings.user,
    password,
    ssl: settings.ssl,
    schema: settings.schema,
    maxConnections: ctx.connection.maxConcurrency,
    connectionName: ctx.connection.name,
    redact: secretRedactor([password, connectionString]),
    warn: ctx.warn,
  });
}

/** `sqlite`: a database file (better-sqlite3); source and target. */
export const sqliteConnectorFactory: ConnectorFactory = {
  type: 'sqlite',
  validateSettings: validateSqliteSettings,
  createSource: (ctx) => new SqlSource(openSqlite(ctx), clockOf(ctx)),
  createTarget: (ctx) =>
    new SqlTarget(openSqlite(ctx), { connectionName: ctx.connection.name, versionField: (ctx.connection.settings as Partial<SqliteSettings>).versionField }),
};

/** `postgres`: a PostgreSQL database (pg pool of `connection.maxConcurrency`); source and target. */
export const postgresConnectorFactory: ConnectorFactory = {
  type: 'postgres',
  validateSettings: validatePostgresSettings,
  createSource: (ctx) => new SqlSource(openPostgres(ctx), clockOf(ctx)),
  createTarget: (ctx) =>
    new SqlTarget(openPostgres(ctx), { connectionName: ctx.connection.name, versionField: (ctx.connection.settings as PostgresSettings).versionField }),
};

/** Both SQL connector types, for `new ConnectorRegistry([...sqlConnectorFactories, …])`. */
export const sqlConnectorFactories: readonly ConnectorFactory[] = [sqliteConnectorFactory, postgresConnectorFactory];
