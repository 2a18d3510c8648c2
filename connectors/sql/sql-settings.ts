import { secretSettingProblem } from '../../src/platform/literal-secrets';
import type { SettingsProblem, SettingsValidator } from '../base/registry';

/**
 * Settings of a `sqlite` connection.
 * - `file` (required): database file, relative to the configuration folder or absolute; it must exist.
 * - `busyTimeoutMs`: how long a statement waits for another writer's lock. Default 5000.
 * - `versionField`: target column read by `getTargetVersion` (skip-outdated). Default: none.
 * - `groupCommit`: as a target, commit the writes of concurrently processed messages together
 *   (one transaction per event-loop turn). Default false: it widens the window in which a child
 *   is written before its parent has committed (more transitive retries).
 * - `cacheSizeKb`: the connection's page cache in KiB (64 to 1048576). Default 2048.
 * - `synchronous`: `FULL`: a write resolves only once it is on disk, so a power loss cannot take
 *   back a change already completed on the bus (on a WAL database by an fdatasync of the WAL on
 *   the thread pool, shared by the writes committed meanwhile; otherwise by SQLite's FULL).
 *   `NORMAL`: a write survives a crash of the process, not always one of the machine. Default:
 *   SQLite's own, as better-sqlite3 builds it: NORMAL for a WAL database, FULL otherwise.
 */
export interface SqliteSettings {
  file: string;
  busyTimeoutMs?: number;
  versionField?: string;
  groupCommit?: boolean;
  synchronous?: 'NORMAL' | 'FULL';
  cacheSizeKb?: number;
}

/**
 * Settings of a `postgres` connection; `secrets.password` or `secrets.connectionString` name
 * the app settings holding those (never the values).
 * - `host`, `database`, `user` (required unless `secrets.connectionString` is given, then not allowed).
 * - `port`: default 5432.
 * - `schema`: schema of unqualified table names. Default: the server's `search_path`.
 * - `ssl`: require TLS with a verified certificate. Default false.
 * - `versionField`: target column read by `getTargetVersion` (skip-outdated). Default: none.
 */
export interface PostgresSettings {
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  schema?: string;
  ssl?: boolean;
  versionField?: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]*$/;
const IDENTIFIER_MESSAGE = 'must be a plain SQL identifier (letters, digits, _ and $, not starting with a digit)';
const SECRET_SETTINGS = ['password', 'connectionString'];

type Check = (value: unknown) => string | undefined;

const nonEmptyString: Check = (v) => (typeof v === 'string' && v.trim() !== '' ? undefined : 'must be a non-empty string');
const identifier: Check = (v) => (typeof v === 'string' && IDENTIFIER.test(v) ? undefined : IDENTIFIER_MESSAGE);
const boolean: Check = (v) => (typeof v === 'boolean' ? undefined : 'must be true or false');
const oneOf =
  (values: readonly string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v) ? undefined : `must be one of ${values.join(', ')}, got ${JSON.stringify(v)}`;
const integerBetween =
  (min: number, max: number): Check =>
  (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? undefined : `must be an integer from ${min} to ${max}`;

function checkKnown(
  type: string,
  settings: Record<string, unknown>,
  secrets: Record<string, string>,
  checks: Record<string, Check>,
  allowedSecrets: readonly string[],
): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  for (const [key, value] of Object.entries(settings)) {
    const check = checks[key];
    if (allowedSecrets.includes(key)) {
      // The core's words: config validation reports a literal secret once, not once per checker.
      // A type that takes no such secret (sqlite) reports it as the unknown setting it is.
      problems.push(secretSettingProblem(key, value));
    } else if (!check) {
      problems.push({ path: `settings.${key}`, message: `unknown setting of connector type ${type} (known: ${Object.keys(checks).join(', ')})` });
    } else if (value !== undefined) {
      const message = check(value);
      if (message) problems.push({ path: `settings.${key}`, message });
    }
  }
  for (const [key, envName] of Object.entries(secrets)) {
    if (!allowedSecrets.includes(key)) {
      const known = allowedSecrets.length === 0 ? 'none' : allowedSecrets.join(', ');
      problems.push({ path: `secrets.${key}`, message: `unknown secret of connector type ${type} (known: ${known})` });
    } else if (typeof envName !== 'string' || !/^\S+$/.test(envName)) {
      problems.push({ path: `secrets.${key}`, message: 'must name an app setting (env var), without spaces' });
    }
  }
  return problems;
}

export const validateSqliteSettings: SettingsValidator = (settings, secrets) => {
  const problems = checkKnown('sqlite', settings, secrets, { file: nonEmptyString, busyTimeoutMs: integerBetween(0, 600_000), versionField: identifier, groupCommit: boolean, synchronous: oneOf(['NORMAL', 'FULL']), cacheSizeKb: integerBetween(64, 1_048_576) }, []);
  if (settings.file === undefined) problems.unshift({ path: 'settings.file', message: 'is required: the SQLite database file (relative to the configuration folder)' });
  return problems;
};

export const validatePostgresSettings: SettingsValidator = (settings, secrets) => {
  const checks = {
    host: nonEmptyString,
    port: integerBetween(1, 65535),
    database: nonEmptyString,
    user: nonEmptyString,
    schema: identifier,
    ssl: boolean,
    versionField: identifier,
  };
  const problems = checkKnown('postgres', settings, secrets, checks, SECRET_SETTINGS);
  const required = ['host', 'database', 'user'];
  if (secrets.connectionString !== undefined) {
    for (const key of [...required, 'port']) {
      if (settings[key] !== undefined) problems.push({ path: `settings.${key}`, message: 'must not be set together with secrets.connectionString' });
    }
  } else {
    const missing = required.filter((key) => settings[key] === undefined).reverse();
    for (const key of missing) problems.unshift({ path: `settings.${key}`, message: 'is required (or name a connection string in secrets.connectionString)' });
  }
  return problems;
};
