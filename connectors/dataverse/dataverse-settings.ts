import type { z } from 'zod';
import type { SettingsValidator } from '../base/registry';
import { boolean, described, integerBetween, knownProperties, matching, recordOf } from '../base/settings-schema';
import { checkOdataConnection, httpUrl, ODATA_COMMON_SETTINGS, odataIdentifier } from '../odata/odata-settings';

/** The origin of the environment URL must be all of it: the Web API path is added. */
const environmentUrl = () =>
  httpUrl().refine((url) => new URL(url).pathname.replace(/\/$/, '') === '', { error: 'must be the environment URL without a path, e.g. https://contoso.crm4.dynamics.com' });

/** How a lookup column is bound: the related table's entity set, and the key its values are in. */
const lookupSchema = knownProperties(
  {
    entitySet: described(odataIdentifier(), 'Entity set of the related table, e.g. accounts.'),
    key: described(odataIdentifier().optional(), "Alternate key the mapped values are in. Default: the related table's primary key (a GUID)."),
  },
  'unknown property',
  'must be an object with entitySet (and key)',
);

export type DataverseLookup = z.output<typeof lookupSchema>;

/** A table written with `UpsertMultiple`. */
const bulkTableSchema = knownProperties(
  {
    logicalName: described(odataIdentifier(), "The table's logical name (account for accounts)."),
    maxRecords: described(integerBetween(1, 1000).optional(), 'Most records per request. Default 1000; 100 suits elastic tables.', 1000),
    elastic: described(
      boolean().optional(),
      'An elastic table: a refused request may have applied some records, and its error names the others (only those are sent again). ' +
        'Default false: a refused request applied nothing (standard tables), every record of it goes through $batch.',
      false,
    ),
  },
  'unknown property',
  'must be an object with logicalName (and maxRecords, elastic)',
);

/** Settings of a `dataverse` connection (Dataverse / Dynamics 365 Web API). */
export const dataverseSettingsSchema = described(
  knownProperties(
    {
      ...ODATA_COMMON_SETTINGS,
      url: described(environmentUrl(), 'The environment URL, e.g. https://contoso.crm4.dynamics.com. auth.scope defaults to <url>/.default; versionField to modifiedon.'),
      apiVersion: described(matching(/^\d+\.\d+$/, 'must be a version such as 9.2').optional(), 'Web API version. Default 9.2 (paths /api/data/v9.2/).', '9.2'),
      lookups: described(
        recordOf(odataIdentifier(), recordOf(odataIdentifier(), lookupSchema)).optional(),
        'Target entity set → navigation property → the related entity set (and alternate key): a mapped field named like the navigation property ' +
          'is sent as <property>@odata.bind: "/<entitySet>(<key>=<value>)". Fields already named <property>@odata.bind are sent as they are ' +
          '(a bare GUID needs a lookups entry).',
      ),
      batchSize: described(
        integerBetween(1, 1000).optional(),
        'Most upserts sent together in one $batch while another request is in flight (group commit); 1 turns batching off. ' +
          'Also the most requests per $batch when a batch of messages is written. Default 50.',
        50,
      ),
      upsertMultiple: described(
        recordOf(odataIdentifier(), bulkTableSchema).optional(),
        'Entity set → { logicalName, maxRecords?, elastic? } of tables written with UpsertMultiple (not every table supports it: query sdkmessagefilters). ' +
          'Default: none, every table through $batch.',
      ),
    },
    'unknown setting of connector type dataverse',
  ),
  'Settings of a dataverse connection (Dataverse / Dynamics 365 Web API). Secrets: clientSecret or certificate, as settings.auth needs.',
);

export type DataverseSettings = z.output<typeof dataverseSettingsSchema>;

export const validateDataverseSettings: SettingsValidator = (settings, secrets) => checkOdataConnection('dataverse', dataverseSettingsSchema, settings, secrets);

/** The Web API service root of a connection, e.g. `https://contoso.crm4.dynamics.com/api/data/v9.2/`. */
export function dataverseServiceRoot(settings: DataverseSettings): string {
  return `${new URL(settings.url).origin}/api/data/v${settings.apiVersion ?? '9.2'}/`;
}
