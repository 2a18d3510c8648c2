import type { SettingsValidator } from '../base/registry';
import type { BulkTable } from './upsert-multiple';
import { AUTH_SECRETS, checkAuth, COMMON_CHECKS, type OdataCommonSettings } from '../odata/odata-settings';
import { type Check, checkConnection, httpUrl, identifier, integerBetween, isObject, objectOf, recordOf } from '../odata/settings-checks';

/** How a lookup column is bound: the related table's entity set, and the key its values are in (default: its primary key, a GUID). */
export interface DataverseLookup {
  entitySet: string;
  key?: string;
}

/**
 * Settings of a `dataverse` connection (Dataverse / Dynamics 365 Web API).
 * - `url` (required): the environment URL, e.g. `https://contoso.crm4.dynamics.com`.
 * - `apiVersion`: Web API version. Default `9.2` (paths `/api/data/v9.2/`).
 * - `lookups`: target entity set → navigation property → the related entity set (and
 *   alternate key): a mapped field named like the navigation property is sent as
 *   `<property>@odata.bind: "/<entitySet>(<key>=<value>)"`. Fields already named
 *   `<property>@odata.bind` are sent as they are (a bare GUID needs a `lookups` entry).
 * - `batchSize`: most upserts sent together in one `$batch` while another request is in
 *   flight (group commit); 1 turns batching off. Default 50, at most 1000.
 *   It is also the most requests per `$batch` when a batch of messages is written.
 * - `upsertMultiple`: entity set → `{ logicalName, maxRecords? }` of tables written with
 *   `UpsertMultiple` (not every table supports it: query `sdkmessagefilters`); `logicalName` is
 *   the table's logical name (`account` for `accounts`), `maxRecords` the most records per
 *   request (default 1000; 100 suits elastic tables). Default: none, every table through `$batch`.
 * - `auth.scope` defaults to `<url>/.default`; `versionField` defaults to `modifiedon`.
 */
export interface DataverseSettings extends OdataCommonSettings {
  url: string;
  apiVersion?: string;
  lookups?: Record<string, Record<string, DataverseLookup>>;
  batchSize?: number;
  upsertMultiple?: Record<string, BulkTable>;
}

const apiVersion: Check = (v, path) => (typeof v === 'string' && /^\d+\.\d+$/.test(v) ? [] : [{ path, message: 'must be a version such as 9.2' }]);

const bulkTable: Check = (v, path) =>
  isObject(v)
    ? objectOf({ logicalName: identifier, maxRecords: integerBetween(1, 1000) }, ['logicalName'])(v, path)
    : [{ path, message: 'must be an object with logicalName (and maxRecords)' }];

const lookup: Check = (v, path) =>
  isObject(v) ? objectOf({ entitySet: identifier, key: identifier }, ['entitySet'])(v, path) : [{ path, message: 'must be an object with entitySet (and key)' }];

/** The origin of the environment URL must be all of it: the Web API path is added. */
const environmentUrl: Check = (v, path) => {
  const problems = httpUrl(v, path);
  if (problems.length > 0) return problems;
  return new URL(v as string).pathname.replace(/\/$/, '') === '' ? [] : [{ path, message: 'must be the environment URL without a path, e.g. https://contoso.crm4.dynamics.com' }];
};

export const validateDataverseSettings: SettingsValidator = (settings, secrets) => [
  ...checkConnection(
    {
      type: 'dataverse',
      settings: { ...COMMON_CHECKS, url: environmentUrl, apiVersion, lookups: recordOf(recordOf(lookup)), batchSize: integerBetween(1, 1000), upsertMultiple: recordOf(bulkTable) },
      required: ['url'],
      secrets: AUTH_SECRETS,
    },
    settings,
    secrets,
  ),
  ...checkAuth(settings.auth, secrets),
];

/** The Web API service root of a connection, e.g. `https://contoso.crm4.dynamics.com/api/data/v9.2/`. */
export function dataverseServiceRoot(settings: DataverseSettings): string {
  return `${new URL(settings.url).origin}/api/data/v${settings.apiVersion ?? '9.2'}/`;
}
