import type { ConnectorContext } from '../base/connector-context';
import { contextClock, readSecret, secretRedactor } from '../base/connector-context';
import type { Connection } from '../../src/model/connection';
import { ConcurrencyLimit } from '../../src/platform/concurrency-limit';
import { type AccessTokenProvider, identityTokenProvider } from './odata-auth';
import { type FetchLike, OdataHttpClient } from './odata-http';
import type { OdataAuthSettings, OdataCommonSettings } from './odata-settings';

/** What tests (and embedding hosts) may replace when a factory opens a connection. */
export interface OdataTransportOverrides {
  /** Default: the global `fetch`. */
  fetch?: FetchLike;
  /** Replaces the `@azure/identity` token provider (tests must never reach Entra ID). */
  tokens?: (ctx: ConnectorContext, scope: string) => AccessTokenProvider;
}

export interface OdataConnectionOptions {
  /** Connector type, for messages: `odata`, `dataverse`, `businesscentral`. */
  type: string;
  /** Token scope when `settings.auth.scope` is not given. */
  defaultScope: string;
  overrides?: OdataTransportOverrides;
  /** The most requests in flight the service allows, whatever `connection.maxConcurrency` says (Business Central: 5). Default: no cap. */
  maxConcurrencyCap?: number;
  /** Negotiate `IEEE754Compatible=true` (see `OdataHttpOptions.ieee754Compatible`). Default false. */
  ieee754Compatible?: boolean;
}

// One limit per connection object: the source and the target of a connection (opened apart by
// the connector provider) share `maxConcurrency`; a reloaded configuration starts afresh.
const LIMITS = new WeakMap<Connection, ConcurrencyLimit>();

function sharedLimit(connection: Connection, cap = Infinity): ConcurrencyLimit {
  let limit = LIMITS.get(connection);
  if (!limit) {
    limit = new ConcurrencyLimit(Math.min(connection.maxConcurrency ?? 8, cap));
    LIMITS.set(connection, limit);
  }
  return limit;
}

/** Opens an HTTP client on a service root (a URL, or a function resolving it once). */
export type OpenClient = (serviceRoot: string | (() => Promise<string>)) => OdataHttpClient;

/**
 * HTTP clients of one connection: its settings, secrets read at the edge, one token provider,
 * one `connection.maxConcurrency` limit, and redaction of the secret values from every message.
 */
export function openOdataConnection(ctx: ConnectorContext, options: OdataConnectionOptions): OpenClient {
  const settings = ctx.connection.settings as OdataCommonSettings;
  const auth: OdataAuthSettings = settings.auth ?? { kind: 'none' };
  const clientSecret = auth.kind === 'clientSecret' ? readSecret(ctx, 'clientSecret') : undefined;
  const certificatePem = auth.kind === 'certificate' ? readSecret(ctx, 'certificate') : undefined;
  const redact = secretRedactor([clientSecret, certificatePem]);
  const clock = contextClock(ctx);
  const label = `${options.type} connection "${ctx.connection.name}"`;
  let tokens: AccessTokenProvider | undefined;
  if (auth.kind !== 'none') {
    const scope = auth.scope ?? options.defaultScope;
    tokens = options.overrides?.tokens?.(ctx, scope) ??
      identityTokenProvider({ auth, scope, clientSecret, certificatePem, connectionName: ctx.connection.name, redact, clock });
  }
  return (serviceRoot) =>
    new OdataHttpClient({
      serviceRoot,
      label,
      tokens,
      fetch: options.overrides?.fetch,
      timeoutMs: settings.timeoutMs,
      limit: sharedLimit(ctx.connection, options.maxConcurrencyCap),
      maxRetries: settings.maxRetries,
      maxRetryWaitMs: settings.maxRetryWaitMs,
      clock,
      redact,
      warn: ctx.warn,
      ieee754Compatible: options.ieee754Compatible,
    });
}
