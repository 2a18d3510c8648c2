import type { z } from 'zod';
import type { SettingsProblem, SettingsValidator, SourceJobValidator } from '../base/registry';
import { DELTA_LINK_FIELD, isDeltaJob } from '../odata/delta-watermark';
import { described, knownProperties, matching, nonEmptyString } from '../base/settings-schema';
import { checkOdataConnection, entityKeys, httpUrl, ODATA_COMMON_SETTINGS } from '../odata/odata-settings';

const BC_ONLINE_BASE = 'https://api.businesscentral.dynamics.com/v2.0';
export const BC_SCOPE = 'https://api.businesscentral.dynamics.com/.default';

const ONLINE_ONLY = 'Not used (not allowed) with serviceUrl.';

/** Settings of a `businesscentral` connection (Business Central API v2.0 or a custom API). */
export const businessCentralSettingsSchema = described(
  knownProperties(
    {
      ...ODATA_COMMON_SETTINGS,
      company: described(nonEmptyString(), "The company's name (or display name) or its id (GUID)."),
      tenantId: described(nonEmptyString().optional(), `Tenant of the online API root ${BC_ONLINE_BASE}/<tenantId>/<environment>/<apiPath>/; required unless serviceUrl is given. ${ONLINE_ONLY}`),
      environment: described(nonEmptyString().optional(), `Environment of the online API root. Default production. ${ONLINE_ONLY}`, 'production'),
      apiPath: described(
        matching(/^api(\/[A-Za-z0-9_.-]+)+$/, 'must be an API path such as api/v2.0 or api/<publisher>/<group>/<version>').optional(),
        `API path of the online API root. Default api/v2.0; a custom API is e.g. api/contoso/sync/v1.0. ${ONLINE_ONLY}`,
        'api/v2.0',
      ),
      serviceUrl: described(
        httpUrl().optional(),
        'The whole API root instead (on-premises, e.g. https://bc.contoso.local:7048/BC/api/v2.0/); then tenantId, environment and apiPath are not used.',
      ),
      entityKeys: described(
        entityKeys().optional(),
        "Entity set → key properties. Default id for every entity set (the API's SystemId): records are found by the mapping's target key (e.g. number) and written at id.",
      ),
    },
    'unknown setting of connector type businesscentral',
  ),
  'Settings of a businesscentral connection (Business Central API). auth.scope defaults to ' +
    `${BC_SCOPE}; versionField to lastModifiedDateTime. Secrets: clientSecret or certificate, as settings.auth needs.`,
);

export type BusinessCentralSettings = z.output<typeof businessCentralSettingsSchema>;

/** The online API root or the whole one in serviceUrl (beyond the schema: a choice between properties). */
function apiRootProblems(settings: Record<string, unknown>): SettingsProblem[] {
  if (settings.serviceUrl === undefined) {
    return settings.tenantId === undefined ? [{ path: 'settings.tenantId', message: 'is required (or give the whole API root in settings.serviceUrl)' }] : [];
  }
  return ['tenantId', 'environment', 'apiPath']
    .filter((key) => settings[key] !== undefined)
    .map((key) => ({ path: `settings.${key}`, message: 'must not be set together with settings.serviceUrl' }));
}

export const validateBusinessCentralSettings: SettingsValidator = (settings, secrets) =>
  checkOdataConnection('businesscentral', businessCentralSettingsSchema, settings, secrets, apiRootProblems(settings));

/** The API root (without the company), ending with `/`. */
export function businessCentralApiRoot(settings: BusinessCentralSettings): string {
  if (settings.serviceUrl) return settings.serviceUrl.endsWith('/') ? settings.serviceUrl : `${settings.serviceUrl}/`;
  const tenant = encodeURIComponent(settings.tenantId ?? '');
  const environment = encodeURIComponent(settings.environment ?? 'production');
  return `${BC_ONLINE_BASE}/${tenant}/${environment}/${settings.apiPath ?? 'api/v2.0'}/`;
}

/**
 * Business Central offers no change tracking any more: its delta links were deprecated in 2023
 * release wave 2 (version 23) and removed in 2024 release wave 1 (version 24). A job asking for
 * them is refused when the configuration is validated, instead of failing at every run.
 */
export const validateBusinessCentralSourceJob: SourceJobValidator = (job) =>
  isDeltaJob(job)
    ? [{
        path: 'watermark.field',
        message:
          `${DELTA_LINK_FIELD} (change tracking) is not available from businesscentral: Business Central removed delta links in version 24 (2024 release wave 1); ` +
          'use watermark { type: datetime, field: lastModifiedDateTime } (deletions are then not seen)',
      }]
    : [];
