import { classifyError, type ErrorRule, stringCode } from '../base/error-classification';
import type { Clock } from '../../src/platform/clock';
import { ConfigError } from '../../src/platform/errors';
import type { OdataAuthSettings } from './odata-settings';

/** A bearer token for the service; implementations cache and refresh it. */
export interface AccessTokenProvider {
  getToken(): Promise<string>;
}

/** A token with its expiry, as an identity library hands it out. */
export interface ExpiringToken {
  token: string;
  expiresOnTimestamp: number;
}

const REFRESH_BEFORE_EXPIRY_MS = 5 * 60_000;

/**
 * Reuses a token until five minutes before it expires; concurrent callers share one request.
 * A failed request is not cached.
 */
export class CachedTokenProvider implements AccessTokenProvider {
  private current?: ExpiringToken;
  private pending?: Promise<ExpiringToken>;

  constructor(
    private readonly acquire: () => Promise<ExpiringToken>,
    /** Tells when a token is near its expiry. */
    private readonly clock: Pick<Clock, 'now'>,
  ) {}

  async getToken(): Promise<string> {
    if (this.current && this.current.expiresOnTimestamp - REFRESH_BEFORE_EXPIRY_MS > this.clock.now().getTime()) return this.current.token;
    if (!this.pending) {
      this.pending = this.acquire().finally(() => {
        this.pending = undefined;
      });
    }
    this.current = await this.pending;
    return this.current.token;
  }
}

/**
 * Why a token could not be had, by the identity library's error name (or HTTP status of the
 * token endpoint); the connection's settings are wrong unless the endpoint was unreachable.
 */
const TOKEN_ERROR_RULES: readonly ErrorRule[] = [
  { code: 'CredentialUnavailableError', kind: 'config', reason: 'no credential available (managed identity or certificate missing)' },
  { code: /^(400|401|403)$/, kind: 'config', reason: 'the token request was refused: check settings.auth and its secret' },
  { code: 'AuthenticationRequiredError', kind: 'config', reason: 'interactive authentication is not possible here' },
  { code: /^(ENOENT|EACCES|EISDIR)$/, kind: 'config', reason: 'the certificate file cannot be read' },
  { code: 'AuthenticationError', kind: 'transient', reason: 'the token endpoint failed' },
];

function tokenErrorCode(err: unknown): string | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const status = 'statusCode' in err ? err.statusCode : undefined;
  if (typeof status === 'number' && status >= 400 && status < 500) return String(status);
  return stringCode(err) ?? ('name' in err ? String(err.name) : undefined);
}

export interface IdentityOptions {
  auth: Exclude<OdataAuthSettings, { kind: 'none' }>;
  /** Scope requested, e.g. `https://org.crm.dynamics.com/.default`. */
  scope: string;
  /** Secret values read through `readSecret` (never logged). */
  clientSecret?: string;
  certificatePem?: string;
  connectionName: string;
  redact: (text: string) => string;
  /** Tells when the cached token is near its expiry. */
  clock: Pick<Clock, 'now'>;
}

/**
 * A token provider on `@azure/identity`. The credential is created on the first request, so
 * opening a connector never reaches the identity endpoint; the library is loaded then too, so a
 * process whose connectors need no token does not carry it.
 */
export function identityTokenProvider(options: IdentityOptions): AccessTokenProvider {
  type Credential = { getToken(scope: string): Promise<ExpiringToken | null> };
  let credential: Credential | undefined;
  const create = ({ ClientCertificateCredential, ClientSecretCredential, ManagedIdentityCredential }: typeof import('@azure/identity')): Credential => {
    const { auth } = options;
    const authorityHost = 'authorityHost' in auth ? auth.authorityHost : undefined;
    switch (auth.kind) {
      case 'clientSecret':
        return new ClientSecretCredential(auth.tenantId, auth.clientId, options.clientSecret ?? '', { authorityHost });
      case 'certificate':
        return options.certificatePem !== undefined
          ? new ClientCertificateCredential(auth.tenantId, auth.clientId, { certificate: options.certificatePem }, { authorityHost })
          : new ClientCertificateCredential(auth.tenantId, auth.clientId, { certificatePath: auth.certificatePath ?? '' }, { authorityHost });
      case 'managedIdentity':
        return auth.clientId ? new ManagedIdentityCredential({ clientId: auth.clientId }) : new ManagedIdentityCredential();
    }
  };
  const operation = `connection "${options.connectionName}": get an access token for ${options.scope}`;
  return new CachedTokenProvider(async () => {
    if (!credential) {
      // Outside the try: a library that fails to load is not a problem of settings.auth.
      const identity = await import('@azure/identity');
      try {
        credential = create(identity);
      } catch (err) {
        throw new ConfigError(`${operation}: settings.auth does not make a credential: ${options.redact(err instanceof Error ? err.message : String(err))}`);
      }
    }
    try {
      const token = await credential.getToken(options.scope);
      if (!token) throw Object.assign(new Error('the identity returned no token'), { name: 'CredentialUnavailableError' });
      return token;
    } catch (err) {
      throw classifyError(err, TOKEN_ERROR_RULES, { codeOf: tokenErrorCode, operation, redact: options.redact });
    }
  }, options.clock);
}
