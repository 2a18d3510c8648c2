import { type ConnectorContext, contextClock } from '../base/connector-context';
import type { ConnectorFactory } from '../base/registry';
import { openOdataConnection, type OdataTransportOverrides } from '../odata/odata-connection';
import type { OdataHttpClient } from '../odata/odata-http';
import { isGuid } from '../odata/odata-literals';
import { OdataSource } from '../odata/odata-source';
import { OdataTarget } from '../odata/odata-target';
import type { CsdlModel } from '../odata/csdl';
import { optionalServiceModel } from '../odata/service-model';
import { propertyTypes } from '../odata/typed-values';
import { companyServiceRoot } from './bc-company';
import { BC_SCOPE, businessCentralApiRoot, type BusinessCentralSettings, businessCentralSettingsSchema, validateBusinessCentralSettings, validateBusinessCentralSourceJob } from './bc-settings';

/** Business Central's limits: operations per `$batch`, and requests in flight per user. */
const BC_MAX_BATCH_OPERATIONS = 100;
export const BC_MAX_CONCURRENCY = 5;

/** The API route's model of each source connection (its sources share it). */
const SOURCE_MODELS = new WeakMap<object, Promise<CsdlModel>>();

/** A client on the connection's company, resolved on the first request. */
function openCompany(ctx: ConnectorContext, overrides?: OdataTransportOverrides): { settings: BusinessCentralSettings; http: OdataHttpClient; label: string } {
  const settings = ctx.connection.settings as unknown as BusinessCentralSettings;
  const label = `businesscentral connection "${ctx.connection.name}"`;
  // Business Central runs 5 requests per user at once and queues (then refuses) the rest.
  const open = openOdataConnection(ctx, { type: 'businesscentral', defaultScope: BC_SCOPE, overrides, maxConcurrencyCap: BC_MAX_CONCURRENCY });
  const apiRoot = businessCentralApiRoot(settings);
  const api = open(apiRoot);
  return { settings, label, http: open(() => companyServiceRoot(api, settings.company, label)) };
}

/**
 * `businesscentral`: Business Central API (v2.0 or custom); source (watermark
 * `lastModifiedDateTime`; change tracking is refused, Business Central has no delta links) and
 * target (records found by the mapped key, written at `id` with `If-Match: <ETag>`, a batch of
 * messages as JSON `$batch` requests of at most 100 operations; bound actions
 * such as `salesInvoices/Microsoft.NAV.post`). `overrides` replace the transport (tests).
 */
export function createBusinessCentralConnectorFactory(overrides?: OdataTransportOverrides): ConnectorFactory {
  return {
    type: 'businesscentral',
    validateSettings: validateBusinessCentralSettings,
    validateSourceJob: validateBusinessCentralSourceJob,
    settingsSchema: businessCentralSettingsSchema,
    createSource: (ctx) => {
      const { http } = openCompany(ctx, overrides);
      // The API route's $metadata (as for writes), once per connection: Edm.Binary read as bytes,
      // Edm.Int64 strings as numbers where a double holds them.
      const columnTypes = async (set: string) => {
        let model = SOURCE_MODELS.get(ctx.connection);
        if (!model) {
          const reading = optionalServiceModel(http, ctx.warn, '../$metadata');
          SOURCE_MODELS.set(ctx.connection, (model = reading));
          reading.catch(() => SOURCE_MODELS.delete(ctx.connection));
        }
        return propertyTypes((await model).get(set));
      };
      return new OdataSource({ http, clock: contextClock(ctx), delta: { warn: ctx.warn }, columnTypes });
    },
    createTarget: (ctx) => {
      const { settings, http, label } = openCompany(ctx, overrides);
      return new OdataTarget({
        http,
        label,
        upsertMode: 'read-then-write',
        entityKeys: settings.entityKeys,
        defaultEntityKey: ['id'],
        bareSingleKey: (_name, value) => isGuid(value),
        versionField: settings.versionField ?? 'lastModifiedDateTime',
        // Independent operations (no `Isolation: snapshot`): each keeps its own status.
        batchFormat: 'json',
        batchSize: BC_MAX_BATCH_OPERATIONS,
        // The API route's $metadata (above the company), read once a message carries digits:
        // Edm.Decimal and Edm.Int64 then go as JSON numbers with every digit, not as strings BC refuses.
        typedValues: 'when-needed',
        metadataUrl: '../$metadata',
        warn: ctx.warn,
      });
    },
  };
}

export const businessCentralConnectorFactory: ConnectorFactory = createBusinessCentralConnectorFactory();
