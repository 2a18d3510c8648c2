/* eslint-disable @typescript-eslint/no-require-imports -- `require` on purpose: connectors open synchronously, and a static import would load what this file exists to defer */
import { ConnectorRegistry, lazyConnectorFactory } from './base/registry';
import { businessCentralSettingsSchema, validateBusinessCentralSettings, validateBusinessCentralSourceJob } from './businesscentral/bc-settings';
import { dataverseSettingsSchema, validateDataverseSettings } from './dataverse/dataverse-settings';
import { odataSettingsSchema, validateOdataSettings } from './odata/odata-settings';
import { sqlConnectorFactories } from './sql/sql-connectors';

/*
 * Only the settings checks and schemas are imported here (config validation and the JSON Schema
 * need them for every type); each HTTP connector's implementation, and `@azure/identity` behind
 * it, loads when a connection of that type is first opened. The SQL factories defer their
 * drivers themselves (`sql-connectors`).
 */

const odata = lazyConnectorFactory({
  type: 'odata',
  validateSettings: validateOdataSettings,
  settingsSchema: odataSettingsSchema,
  load: () => (require('./odata/odata-connectors') as typeof import('./odata/odata-connectors')).odataConnectorFactory,
});

const dataverse = lazyConnectorFactory({
  type: 'dataverse',
  validateSettings: validateDataverseSettings,
  settingsSchema: dataverseSettingsSchema,
  load: () => (require('./dataverse/dataverse-connectors') as typeof import('./dataverse/dataverse-connectors')).dataverseConnectorFactory,
});

const businessCentral = lazyConnectorFactory({
  type: 'businesscentral',
  validateSettings: validateBusinessCentralSettings,
  validateSourceJob: validateBusinessCentralSourceJob,
  settingsSchema: businessCentralSettingsSchema,
  load: () => (require('./businesscentral/bc-connectors') as typeof import('./businesscentral/bc-connectors')).businessCentralConnectorFactory,
});

/** Every connector type Highwater ships, registered; implementations load on first use. */
export function defaultConnectorRegistry(): ConnectorRegistry {
  return new ConnectorRegistry([...sqlConnectorFactories, odata, dataverse, businessCentral]);
}
