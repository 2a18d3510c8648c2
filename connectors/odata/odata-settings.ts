import type { SettingsProblem, SettingsValidator } from '../base/registry';
import {
  arrayOf,
  type Check,
  checkConnection,
  httpUrl,
  identifier,
  integerBetween,
  isObject,
  nonEmptyString,
  objectOf,
  oneOf,
  recordOf,
} from './settings-checks';

/**
 * How a connector gets its access token (Microsoft Entra ID through `@azure/identity`).
 * - `none` (default): no `Authorization` header.
 * - `clientSecret`: app registration; the secret comes from `secrets.clientSecret`.
 * - `certificate`: app registration with a PEM certificate, from `certificatePath` or the
 *   app setting named by `secrets.certificate` (PEM text).
 * - `managedIdentity`: the host's identity; `clientId` selects a user-assigned one.
 * `scope` defaults per connector (OData: `<origin of serviceUrl>/.default`); `authorityHost`
 * defaults to the public cloud.
 */
export type OdataAuthSettings =
  | { kind: 'none' }
  | { kind: 'clientSecret'; tenantId: string; clientId: string; scope?: string; authorityHost?: string }
  | { kind: 'certificate'; tenantId: string; clientId: string; certificatePath?: string; scope?: string; authorityHost?: string }
  | { kind: 'managedIdentity'; clientId?: string; scope?: string };

/** Settings every OData-based connection type shares. */
export interface OdataCommonSettings {
  auth?: OdataAuthSettings;
  /** Per-request timeout, ms. Default 60 000. */
  timeoutMs?: number;
  /** Source reads retried after 429/503 (waiting `Retry-After`). Default 3. */
  maxRetries?: number;
  /** Longest wait before such a retry, ms; a longer `Retry-After` fails the read as transient. Default 120 000. */
  maxRetryWaitMs?: number;
  /** Target property read by `getTargetVersion` (skip-outdated). Default: none (Dataverse `modifiedon`, Business Central `lastModifiedDateTime`). */
  versionField?: string;
}

/**
 * Settings of an `odata` connection (any OData V4 service).
 * - `serviceUrl` (required): the service root, e.g. `https://host/odata/v4/catalog/`.
 * - `entityKeys`: entity set → key properties, for targets whose `mapping.target.key` is an
 *   alternate key: records are then found with `$filter` on the mapping's key and written at
 *   their entity key. Default: the mapping's target key is the entity key.
 * - `upsertMode`: `read-then-write` (default: find the record, then PATCH it with `If-Match`
 *   when it has an ETag, or POST it) or `patch` (one PATCH; for services that upsert on PATCH).
 * - `batchFormat`: how a group of messages is written: `json` (one OData 4.01 JSON `$batch`),
 *   `multipart` (one `multipart/mixed` `$batch`) or `off` (default: single requests, as many at
 *   once as `connection.maxConcurrency` allows; for services without `$batch`).
 * - `batchSize`: most operations per `$batch`; a larger group goes as several. Default 100, at most 1000.
 */
export interface OdataSettings extends OdataCommonSettings {
  serviceUrl: string;
  entityKeys?: Record<string, string[]>;
  upsertMode?: 'read-then-write' | 'patch';
  batchFormat?: 'json' | 'multipart' | 'off';
  batchSize?: number;
}

export const AUTH_SECRETS = ['clientSecret', 'certificate'] as const;

const AUTH_CHECKS: Record<OdataAuthSettings['kind'], { checks: Record<string, Check>; required: string[] }> = {
  none: { checks: {}, required: [] },
  clientSecret: { checks: { tenantId: nonEmptyString, clientId: nonEmptyString, scope: nonEmptyString, authorityHost: httpUrl }, required: ['tenantId', 'clientId'] },
  certificate: {
    checks: { tenantId: nonEmptyString, clientId: nonEmptyString, certificatePath: nonEmptyString, scope: nonEmptyString, authorityHost: httpUrl },
    required: ['tenantId', 'clientId'],
  },
  managedIdentity: { checks: { clientId: nonEmptyString, scope: nonEmptyString }, required: [] },
};

/** `settings.auth` and the secrets it needs. */
export function checkAuth(auth: unknown, secrets: Record<string, string>): SettingsProblem[] {
  if (auth === undefined) return unusedSecrets('none', secrets);
  if (!isObject(auth)) return [{ path: 'settings.auth', message: 'must be an object' }];
  const kind = auth.kind;
  if (typeof kind !== 'string' || !Object.hasOwn(AUTH_CHECKS, kind)) {
    return [{ path: 'settings.auth.kind', message: `must be one of ${Object.keys(AUTH_CHECKS).join(', ')}` }];
  }
  const { checks, required } = AUTH_CHECKS[kind as OdataAuthSettings['kind']];
  const problems = objectOf({ kind: nonEmptyString, ...checks }, required)(auth, 'settings.auth');
  if (kind === 'clientSecret' && secrets.clientSecret === undefined) {
    problems.push({ path: 'secrets.clientSecret', message: 'is required for auth kind clientSecret: name the app setting that holds the client secret' });
  }
  if (kind === 'certificate') {
    const both = auth.certificatePath !== undefined && secrets.certificate !== undefined;
    const neither = auth.certificatePath === undefined && secrets.certificate === undefined;
    if (both || neither) problems.push({ path: 'settings.auth.certificatePath', message: 'give either certificatePath or secrets.certificate (PEM text), not both' });
  }
  return [...problems, ...unusedSecrets(kind, secrets)];
}

function unusedSecrets(kind: string, secrets: Record<string, string>): SettingsProblem[] {
  const used = kind === 'clientSecret' ? ['clientSecret'] : kind === 'certificate' ? ['certificate'] : [];
  return AUTH_SECRETS.filter((s) => secrets[s] !== undefined && !used.includes(s)).map((s) => ({
    path: `secrets.${s}`,
    message: `is not used by auth kind ${kind}`,
  }));
}

/** Checks of the settings in {@link OdataCommonSettings}; `auth` is checked by {@link checkAuth}. */
export const COMMON_CHECKS: Record<string, Check> = {
  auth: () => [],
  timeoutMs: integerBetween(1_000, 600_000),
  maxRetries: integerBetween(0, 10),
  maxRetryWaitMs: integerBetween(0, 3_600_000),
  versionField: identifier,
};

export const validateOdataSettings: SettingsValidator = (settings, secrets) => [
  ...checkConnection(
    {
      type: 'odata',
      settings: {
        ...COMMON_CHECKS,
        serviceUrl: httpUrl,
        entityKeys: recordOf(arrayOf(identifier)),
        upsertMode: oneOf('read-then-write', 'patch'),
        batchFormat: oneOf('json', 'multipart', 'off'),
        batchSize: integerBetween(1, 1000),
      },
      required: ['serviceUrl'],
      secrets: AUTH_SECRETS,
    },
    settings,
    secrets,
  ),
  ...checkAuth(settings.auth, secrets),
];
