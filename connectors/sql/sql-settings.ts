import type { z } from 'zod';
import type { SettingsProblem, SettingsValidator } from '../base/registry';
import { secretReferenceProblems, settingsProblems } from '../base/settings-problems';
import { OUTBOX_DESCRIPTION, outboxSettingsSchema } from './outbox-settings';
import { boolean, described, integerBetween, knownProperties, matching, nonEmptyString, oneOf } from '../base/settings-schema';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]*$/;
const sqlIdentifier = () => matching(IDENTIFIER, 'must be a plain SQL identifier (letters, digits, _ and $, not starting with a digit)');
const versionField = () => described(sqlIdentifier().optional(), 'Target column read by getTargetVersion (skip-outdated). Default: none.');

/** Settings of a `sqlite` connection. */
export const sqliteSettingsSchema = described(
  knownProperties(
    {
      file: described(
        nonEmptyString('is required: the SQLite database file (relative to the configuration folder)'),
        'Database file, relative to the configuration folder or absolute; it must exist.',
      ),
      busyTimeoutMs: described(integerBetween(0, 600_000).optional(), "How long a statement waits for another writer's lock, ms. Default 5000.", 5000),
      versionField: versionField(),
      groupCommit: described(
        boolean().optional(),
        'Commit together the single writes this connection issues in one event-loop turn (one transaction per turn): ' +
          'those of two-way pairs synced in parallel, InvokeAction calls, and an outbox source\'s own bookkeeping. ' +
          'NewUpdate and Delete groups of one-way jobs are not affected: each runs in one transaction of its own either way. ' +
          'Default false: it widens the window in which a child is written before its parent has committed (more transitive retries).',
        false,
      ),
      synchronous: described(
        oneOf(['NORMAL', 'FULL'], (v) => `must be one of NORMAL, FULL, got ${JSON.stringify(v)}`).optional(),
        'FULL: a write resolves only once it is on disk, so a power loss cannot take back a change already completed on the bus ' +
          "(on a WAL database by an fdatasync of the WAL, shared by the writes committed meanwhile; otherwise by SQLite's FULL). " +
          "NORMAL: a write survives a crash of the process, not always one of the machine. Default: SQLite's own, as better-sqlite3 " +
          'builds it: NORMAL for a WAL database, FULL otherwise.',
      ),
      cacheSizeKb: described(integerBetween(64, 1_048_576).optional(), "The connection's page cache in KiB (64 to 1048576). Default 2048.", 2048),
      outbox: described(outboxSettingsSchema.optional(), OUTBOX_DESCRIPTION),
    },
    'unknown setting of connector type sqlite',
  ),
  'Settings of a sqlite connection: a database file (better-sqlite3). No secrets.',
);

export type SqliteSettings = z.output<typeof sqliteSettingsSchema>;

/** The secrets of a database server connection (postgres, mysql). */
const SERVER_SECRETS = ['password', 'connectionString'];
const REQUIRED_UNLESS_CONNECTION_STRING = ['host', 'database', 'user'];
const unlessConnectionString = (what: string) => `${what}; required unless secrets.connectionString names a connection string (then not allowed).`;

/**
 * Settings of a `postgres` connection; `secrets.password` or `secrets.connectionString` name
 * the app settings holding those (never the values).
 */
export const postgresSettingsSchema = described(
  knownProperties(
    {
      host: described(nonEmptyString().optional(), unlessConnectionString('Server host name')),
      port: described(integerBetween(1, 65535).optional(), 'Server port. Default 5432; not allowed with secrets.connectionString.', 5432),
      database: described(nonEmptyString().optional(), unlessConnectionString('Database name')),
      user: described(nonEmptyString().optional(), unlessConnectionString('User name')),
      schema: described(sqlIdentifier().optional(), "Schema of unqualified table names. Default: the server's search_path."),
      ssl: described(boolean().optional(), 'Require TLS with a verified certificate. Default false.', false),
      versionField: versionField(),
      outbox: described(outboxSettingsSchema.optional(), OUTBOX_DESCRIPTION),
    },
    'unknown setting of connector type postgres',
  ),
  'Settings of a postgres connection (a pg pool of connection.maxConcurrency). Secrets: password, or connectionString alone.',
);

export type PostgresSettings = z.output<typeof postgresSettingsSchema>;

export const validateSqliteSettings: SettingsValidator = (settings, secrets) => [
  ...settingsProblems(sqliteSettingsSchema, settings),
  ...secretReferenceProblems('sqlite', secrets, []),
];

/**
 * Settings of a `mysql` connection (MariaDB or MySQL); `secrets.password` or
 * `secrets.connectionString` (`mysql://user:password@host:port/database`) name the app settings
 * holding those (never the values).
 */
export const mysqlSettingsSchema = described(
  knownProperties(
    {
      host: described(nonEmptyString().optional(), unlessConnectionString('Server host name')),
      port: described(integerBetween(1, 65535).optional(), 'Server port. Default 3306; not allowed with secrets.connectionString.', 3306),
      database: described(nonEmptyString().optional(), unlessConnectionString('Database (schema) of unqualified table names')),
      user: described(nonEmptyString().optional(), unlessConnectionString('User name')),
      ssl: described(boolean().optional(), 'Require TLS with a verified certificate (Azure Database for MySQL enforces TLS). Default false.', false),
      versionField: versionField(),
      outbox: described(outboxSettingsSchema.optional(), OUTBOX_DESCRIPTION),
    },
    'unknown setting of connector type mysql',
  ),
  'Settings of a mysql connection: MariaDB or MySQL (a mysql2 pool of connection.maxConcurrency). Secrets: password, or connectionString alone.',
);

export type MysqlSettings = z.output<typeof mysqlSettingsSchema>;

export const validatePostgresSettings: SettingsValidator = (settings, secrets) => serverSettingsProblems('postgres', postgresSettingsSchema, settings, secrets);

export const validateMysqlSettings: SettingsValidator = (settings, secrets) => serverSettingsProblems('mysql', mysqlSettingsSchema, settings, secrets);

/** A database server's settings: the schema's problems, then host, database and user, or a connection string. */
function serverSettingsProblems(type: string, schema: typeof postgresSettingsSchema | typeof mysqlSettingsSchema, settings: Record<string, unknown>, secrets: Record<string, string>): SettingsProblem[] {
  const problems = [...settingsProblems(schema, settings, SERVER_SECRETS), ...secretReferenceProblems(type, secrets, SERVER_SECRETS)];
  // Beyond the schema (it sees no secrets): host, database and user, or a connection string.
  if (secrets.connectionString !== undefined) {
    const both = [...REQUIRED_UNLESS_CONNECTION_STRING, 'port'].filter((key) => settings[key] !== undefined);
    return [...problems, ...both.map((key): SettingsProblem => ({ path: `settings.${key}`, message: 'must not be set together with secrets.connectionString' }))];
  }
  const missing = REQUIRED_UNLESS_CONNECTION_STRING.filter((key) => settings[key] === undefined);
  return [...missing.map((key) => ({ path: `settings.${key}`, message: 'is required (or name a connection string in secrets.connectionString)' })), ...problems];
}
