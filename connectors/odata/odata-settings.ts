import { z } from 'zod';
import type { SettingsProblem, SettingsValidator } from '../base/registry';
import { secretReferenceProblems, settingsProblems } from '../base/settings-problems';
import { acceptedString, described, integerBetween, knownProperties, matching, nonEmptyArray, nonEmptyString, oneOf, recordOf } from '../base/settings-schema';

/** A property or entity set name as OData writes it (letters, digits, `_`). */
export const odataIdentifier = () => matching(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an OData identifier (letters, digits and _, not starting with a digit)');

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return ['http:', 'https:'].includes(url.protocol) && url.search === '' && url.hash === '';
  } catch {
    return false;
  }
}

/** An absolute http(s) URL without query or fragment. */
export const httpUrl = () => acceptedString(isHttpUrl, 'must be an absolute http(s) URL without query or fragment');

/** Entity set → key properties (each list non-empty). */
export const entityKeys = () => recordOf(odataIdentifier(), nonEmptyArray(odataIdentifier()));

const tenantId = () => described(nonEmptyString(), 'Directory (tenant) id of the app registration.');
const appClientId = () => described(nonEmptyString(), 'Application (client) id of the app registration.');
const scope = () => described(nonEmptyString().optional(), 'Token scope. Default per connector type (OData: <origin of serviceUrl>/.default).');
const authorityHost = () => described(httpUrl().optional(), 'Microsoft Entra ID authority. Default: the public cloud.');
const authKind = <K extends string>(kind: K, description: string) => described(z.literal(kind), description);

/**
 * How a connector gets its access token (Microsoft Entra ID through `@azure/identity`).
 * `scope` defaults per connector (OData: `<origin of serviceUrl>/.default`).
 */
const odataAuthSchema = described(
  z.discriminatedUnion(
    'kind',
    [
      knownProperties({ kind: authKind('none', 'No Authorization header (the default).') }),
      knownProperties({
        kind: authKind('clientSecret', 'App registration; the secret comes from the app setting named by secrets.clientSecret.'),
        tenantId: tenantId(),
        clientId: appClientId(),
        scope: scope(),
        authorityHost: authorityHost(),
      }),
      knownProperties({
        kind: authKind('certificate', 'App registration with a PEM certificate, from certificatePath or the app setting named by secrets.certificate (PEM text).'),
        tenantId: tenantId(),
        clientId: appClientId(),
        certificatePath: described(nonEmptyString().optional(), 'PEM file (certificate and private key); or name the app setting in secrets.certificate, not both.'),
        scope: scope(),
        authorityHost: authorityHost(),
      }),
      knownProperties({
        kind: authKind('managedIdentity', "The host's managed identity."),
        clientId: described(nonEmptyString().optional(), 'Client id of a user-assigned identity. Default: the system-assigned one.'),
        scope: scope(),
      }),
    ],
    { error: (issue) => (issue.code === 'invalid_union' ? `must be one of ${AUTH_KINDS.join(', ')}` : 'must be an object') },
  ),
  'How the connector gets its access token (Microsoft Entra ID). Default: kind none.',
);

export type OdataAuthSettings = z.output<typeof odataAuthSchema>;
const AUTH_KINDS: readonly string[] = odataAuthSchema.options.map((option) => option.shape.kind.value);

/** Settings every OData-based connection type shares; each type's schema starts with these (its `known:` list does). */
export const ODATA_COMMON_SETTINGS = {
  auth: odataAuthSchema.optional(),
  timeoutMs: described(integerBetween(1_000, 600_000).optional(), 'Per-request timeout, ms. Default 60000.', 60_000),
  maxRetries: described(integerBetween(0, 10).optional(), 'Source reads retried after 429/503 (waiting Retry-After). Default 3.', 3),
  maxRetryWaitMs: described(
    integerBetween(0, 3_600_000).optional(),
    'Longest wait before such a retry, ms; a longer Retry-After fails the read as transient. Default 120000.',
    120_000,
  ),
  versionField: described(
    odataIdentifier().optional(),
    'Target property read by getTargetVersion (skip-outdated). Default: none (Dataverse modifiedon, Business Central lastModifiedDateTime).',
  ),
};

export type OdataCommonSettings = z.output<z.ZodObject<typeof ODATA_COMMON_SETTINGS>>;

/** Settings of an `odata` connection (any OData V4 service). */
export const odataSettingsSchema = described(
  knownProperties(
    {
      ...ODATA_COMMON_SETTINGS,
      serviceUrl: described(httpUrl(), 'The service root, e.g. https://host/odata/v4/catalog/.'),
      entityKeys: described(
        entityKeys().optional(),
        "Entity set → key properties, for targets whose mapping.target.key is an alternate key: records are then found with $filter on the mapping's key " +
          "and written at their entity key. Default: the mapping's target key is the entity key.",
      ),
      upsertMode: described(
        oneOf(['read-then-write', 'patch']).optional(),
        'read-then-write (default: find the record, then PATCH it with If-Match when it has an ETag, or POST it) or patch (one PATCH; for services that upsert on PATCH).',
        'read-then-write',
      ),
      batchFormat: described(
        oneOf(['json', 'multipart', 'off']).optional(),
        'How a group of messages is written: json (one OData 4.01 JSON $batch), multipart (one multipart/mixed $batch) or off ' +
          '(default: single requests, as many at once as connection.maxConcurrency allows; for services without $batch).',
        'off',
      ),
      batchSize: described(integerBetween(1, 1000).optional(), 'Most operations per $batch; a larger group goes as several. Default 100.', 100),
      ieee754Compatible: described(
        z.boolean().optional(),
        'Send Accept and Content-Type with IEEE754Compatible=true (OData JSON format): Edm.Int64 and Edm.Decimal travel as strings both ways. ' +
          'Default true; false for a service that refuses the parameter (then they are written as JSON numbers with every digit).',
        true,
      ),
    },
    'unknown setting of connector type odata',
  ),
  'Settings of an odata connection (any OData V4 service). Secrets: clientSecret or certificate, as settings.auth needs.',
);

export type OdataSettings = z.output<typeof odataSettingsSchema>;

const AUTH_SECRETS = ['clientSecret', 'certificate'] as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The secrets `settings.auth` needs and those it leaves unused (beyond the schema: it sees no secrets). */
function authSecretProblems(auth: unknown, secrets: Record<string, string>): SettingsProblem[] {
  if (auth !== undefined && (!isObject(auth) || typeof auth.kind !== 'string' || !AUTH_KINDS.includes(auth.kind))) return [];
  const kind = auth === undefined ? 'none' : (auth.kind as string);
  const problems: SettingsProblem[] = [];
  if (kind === 'clientSecret' && secrets.clientSecret === undefined) {
    problems.push({ path: 'secrets.clientSecret', message: 'is required for auth kind clientSecret: name the app setting that holds the client secret' });
  }
  if (kind === 'certificate' && (auth?.certificatePath !== undefined) === (secrets.certificate !== undefined)) {
    problems.push({ path: 'settings.auth.certificatePath', message: 'give either certificatePath or secrets.certificate (PEM text), not both' });
  }
  const used = kind === 'clientSecret' || kind === 'certificate' ? [kind] : [];
  for (const secret of AUTH_SECRETS) {
    if (secrets[secret] !== undefined && !used.includes(secret)) problems.push({ path: `secrets.${secret}`, message: `is not used by auth kind ${kind}` });
  }
  return problems;
}

/**
 * Checks an OData-based connection, in the order these types report: literal secrets, the
 * settings (required first, then as written), the secret references, the type's own `rules`,
 * then `auth` and the secrets it needs.
 */
export function checkOdataConnection(
  type: string,
  schema: z.ZodType,
  settings: Record<string, unknown>,
  secrets: Record<string, string>,
  rules: SettingsProblem[] = [],
): SettingsProblem[] {
  const problems = settingsProblems(schema, settings, AUTH_SECRETS);
  const isLiteralSecret = (p: SettingsProblem) => AUTH_SECRETS.some((secret) => p.path === `settings.${secret}`);
  const isAuth = (p: SettingsProblem) => p.path === 'settings.auth' || p.path.startsWith('settings.auth.');
  return [
    ...problems.filter(isLiteralSecret),
    ...problems.filter((p) => !isLiteralSecret(p) && !isAuth(p)),
    ...secretReferenceProblems(type, secrets, AUTH_SECRETS),
    ...rules,
    ...problems.filter(isAuth),
    ...authSecretProblems(settings.auth, secrets),
  ];
}

export const validateOdataSettings: SettingsValidator = (settings, secrets) => checkOdataConnection('odata', odataSettingsSchema, settings, secrets);
