import type { SettingsValidator } from '../base/registry';
import { AUTH_SECRETS, checkAuth, COMMON_CHECKS, type OdataCommonSettings } from '../odata/odata-settings';
import { arrayOf, checkConnection, httpUrl, identifier, nonEmptyString, recordOf } from '../odata/settings-checks';

/**
 * Settings of a `businesscentral` connection (Business Central API v2.0 or a custom API).
 * - `company` (required): the company's name (or display name) or its id (GUID).
 * - `tenantId` and `environment` (default `production`): the online API root
 *   `https://api.businesscentral.dynamics.com/v2.0/<tenantId>/<environment>/<apiPath>/`.
 * - `apiPath`: default `api/v2.0`; a custom API is e.g. `api/contoso/sync/v1.0`.
 * - `serviceUrl`: the whole API root instead (on-premises, e.g.
 *   `https://bc.contoso.local:7048/BC/api/v2.0/`); then `tenantId`, `environment` and `apiPath` are not used.
 * - `entityKeys`: entity set → key properties. Default `id` for every entity set (the API's
 *   SystemId): records are found by the mapping's target key (e.g. `number`) and written at `id`.
 * - `auth.scope` defaults to `https://api.businesscentral.dynamics.com/.default`;
 *   `versionField` defaults to `lastModifiedDateTime`.
 */
export interface BusinessCentralSettings extends OdataCommonSettings {
  company: string;
  tenantId?: string;
  environment?: string;
  apiPath?: string;
  serviceUrl?: string;
  entityKeys?: Record<string, string[]>;
}

export const BC_ONLINE_BASE = 'https://api.businesscentral.dynamics.com/v2.0';
export const BC_SCOPE = 'https://api.businesscentral.dynamics.com/.default';

const apiPath = (v: unknown, path: string) =>
  typeof v === 'string' && /^api(\/[A-Za-z0-9_.-]+)+$/.test(v) ? [] : [{ path, message: 'must be an API path such as api/v2.0 or api/<publisher>/<group>/<version>' }];

export const validateBusinessCentralSettings: SettingsValidator = (settings, secrets) => {
  const problems = checkConnection(
    {
      type: 'businesscentral',
      settings: {
        ...COMMON_CHECKS,
        company: nonEmptyString,
        tenantId: nonEmptyString,
        environment: nonEmptyString,
        apiPath,
        serviceUrl: httpUrl,
        entityKeys: recordOf(arrayOf(identifier)),
      },
      required: ['company'],
      secrets: AUTH_SECRETS,
    },
    settings,
    secrets,
  );
  if (settings.serviceUrl === undefined && settings.tenantId === undefined) {
    problems.push({ path: 'settings.tenantId', message: 'is required (or give the whole API root in settings.serviceUrl)' });
  }
  if (settings.serviceUrl !== undefined) {
    for (const key of ['tenantId', 'environment', 'apiPath']) {
      if (settings[key] !== undefined) problems.push({ path: `settings.${key}`, message: 'must not be set together with settings.serviceUrl' });
    }
  }
  return [...problems, ...checkAuth(settings.auth, secrets)];
};

/** The API root (without the company), ending with `/`. */
export function businessCentralApiRoot(settings: BusinessCentralSettings): string {
  if (settings.serviceUrl) return settings.serviceUrl.endsWith('/') ? settings.serviceUrl : `${settings.serviceUrl}/`;
  const tenant = encodeURIComponent(settings.tenantId ?? '');
  const environment = encodeURIComponent(settings.environment ?? 'production');
  return `${BC_ONLINE_BASE}/${tenant}/${environment}/${settings.apiPath ?? 'api/v2.0'}/`;
}
