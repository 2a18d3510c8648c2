import { type Clock, systemClock } from '../../src/platform/clock';
import type { Connection } from '../../src/model/connection';
import { ConfigError } from '../../src/platform/errors';

/**
 * What a connector factory gets to open a connector. Secrets are read at the edge through
 * `resolveSecret` (app settings / env in production) and never stored or logged by a connector.
 */
export interface ConnectorContext {
  connection: Connection;
  /** Value of the app setting / env var `envName`; undefined when it is not set. */
  resolveSecret: (envName: string) => string | undefined;
  /** Folder the configuration was loaded from; relative file settings (e.g. SQLite `file`) resolve against it. */
  configDir: string;
  /**
   * Time: `detectedAt`, token expiry, and the waits before retrying a throttled read (so a fake
   * clock also skips those in tests). Default: the system clock (see {@link contextClock}).
   */
  clock?: Pick<Clock, 'now' | 'sleep'>;
  /** Warnings a connector wants to surface (never with secret values). Default: none. */
  warn?: (message: string) => void;
}

/** The context's clock, or the system clock when it gives none. */
export function contextClock(ctx: ConnectorContext): Pick<Clock, 'now' | 'sleep'> {
  return ctx.clock ?? systemClock;
}

/**
 * The value of the secret a connection names for `setting` (e.g. `password`), or undefined when
 * the connection names none. The message of the error names the env var, never the value.
 * @throws ConfigError when the connection names an env var that is not set.
 */
export function readSecret(ctx: ConnectorContext, setting: string): string | undefined {
  const envName = ctx.connection.secrets[setting];
  if (envName === undefined) return undefined;
  const value = ctx.resolveSecret(envName);
  if (value === undefined || value === '') {
    throw new ConfigError(`connection "${ctx.connection.name}": secret "${setting}" names app setting ${envName}, which is not set`);
  }
  return value;
}

/**
 * A function that replaces every resolved secret value in a text by `***`, for driver messages
 * that might echo a connection string or password back.
 */
export function secretRedactor(secretValues: ReadonlyArray<string | undefined>): (text: string) => string {
  const values = secretValues.filter((v): v is string => typeof v === 'string' && v.length >= 3);
  return (text) => values.reduce((acc, value) => acc.split(value).join('***'), text);
}
