import { defineSetting, type AppSetting } from './setting-spec';
import { ignored, text, url } from './setting-schemas';

/**
 * App settings of the connections to Azure: storage, Service Bus, the identity and Application
 * Insights. Locally, connection strings; in Azure, identities — a connection string is never set
 * in Azure, and an identity endpoint is not needed locally.
 */

/**
 * The Service Bus triggers' connection setting (a connection string under `func start`). The code
 * falls back to it when `SERVICEBUS_CONNECTION_STRING` is not set, so the triggers and the code
 * cannot reach different brokers. A constant of its own: `functions/` binds it by this name.
 */
export const TRIGGER_CONNECTION_SETTING = 'ServiceBusConnection';

/** Read by the Functions host, its extensions or an SDK only: documented, never read by Highwater's code. */
const platform = (name: string, section: 'storage' | 'serviceBus' | 'identity' | 'telemetry', readers: string, local: string, azure: string): AppSetting<undefined> =>
  defineSetting({ name, readBy: 'platform', type: 'text', description: `Read by ${readers}.`, local, azure, section, schema: ignored() });

const hostReads = 'the Functions host and Durable Functions (the identity-based storage connection)';
const triggersRead = 'the Service Bus triggers (their identity-based connection)';

export const CONNECTION_DECLARATIONS = {
  storage: defineSetting({
    name: 'AzureWebJobsStorage',
    readBy: 'code',
    type: 'connection string',
    default: 'the local Azurite',
    description:
      'Table storage of the code, the Functions host and Durable Functions. `UseDevelopmentStorage=true` counts as unset: the code reuses the Azurite answering on `HIGHWATER_AZURITE_PORT` or starts one. ' +
      'The code takes the first that is set: a real connection string here, then `HIGHWATER_TABLES_ENDPOINT`, then the local tables.',
    local: '`UseDevelopmentStorage=true`',
    azure: 'not set',
    section: 'storage',
    schema: text(),
  }),
  storageAccountName: platform('AzureWebJobsStorage__accountName', 'storage', hostReads, '—', 'the storage account'),
  storageCredential: platform('AzureWebJobsStorage__credential', 'storage', hostReads, '—', '`managedidentity`'),
  storageClientId: platform('AzureWebJobsStorage__clientId', 'storage', hostReads, '—', 'client id of the app identity'),
  tablesEndpoint: defineSetting({
    name: 'HIGHWATER_TABLES_ENDPOINT',
    readBy: 'code',
    type: 'URL',
    description: 'Table storage account URL for identity-based access (`DefaultAzureCredential`). An http(s) URL without credentials.',
    local: 'not set (set it to reach Azure tables from your machine, e.g. for `highwater config push`)',
    azure: '`https://<account>.table.core.windows.net`',
    section: 'storage',
    schema: url(),
  }),
  triggerConnection: defineSetting({
    name: TRIGGER_CONNECTION_SETTING,
    readBy: 'code',
    type: 'connection string',
    description:
      'The Service Bus triggers\u2019 connection (their connection is named `ServiceBusConnection`), and the code\u2019s when `SERVICEBUS_CONNECTION_STRING` is not set: ' +
      'under `func start` setting it alone is enough, and both reach the same broker.',
    local: 'the emulator: `Endpoint=sb://localhost;…;UseDevelopmentEmulator=true;` (its published development key)',
    azure: 'not set',
    section: 'serviceBus',
    schema: text(),
  }),
  serviceBus: defineSetting({
    name: 'SERVICEBUS_CONNECTION_STRING',
    readBy: 'code',
    type: 'connection string',
    default: '`ServiceBusConnection`',
    description:
      'Service Bus of the code (sending, counts, the dead-letter mover), overriding `ServiceBusConnection`: set it only to point the code somewhere else than the triggers. ' +
      'The code takes it, else `ServiceBusConnection`, else `ServiceBusConnection__fullyQualifiedNamespace`, else the embedded local bus (SQLite under the data folder, used by `npm start`).',
    local: 'not set (`local.settings.example.json` names the emulator once, as `ServiceBusConnection`)',
    azure: 'not set',
    section: 'serviceBus',
    schema: text(),
  }),
  serviceBusNamespace: defineSetting({
    name: 'ServiceBusConnection__fullyQualifiedNamespace',
    readBy: 'code',
    type: 'host name',
    description: 'Service Bus namespace for managed identity, read by the code and the triggers.',
    local: '—',
    azure: '`<namespace>.servicebus.windows.net`',
    section: 'serviceBus',
    schema: text(),
  }),
  serviceBusCredential: platform('ServiceBusConnection__credential', 'serviceBus', triggersRead, '—', '`managedidentity`'),
  serviceBusClientId: platform('ServiceBusConnection__clientId', 'serviceBus', triggersRead, '—', 'client id of the app identity'),
  azureClientId: platform(
    'AZURE_CLIENT_ID',
    'identity',
    '`DefaultAzureCredential` in the code (tables, Service Bus): it picks the user-assigned identity by it',
    'not set: your `az login` / `azd auth login` is used',
    'client id of the user-assigned identity',
  ),
  appInsights: defineSetting({
    name: 'APPLICATIONINSIGHTS_CONNECTION_STRING',
    readBy: 'code',
    type: 'connection string',
    description:
      'Switches Application Insights on, for the Functions host and the code (`src/telemetry`); unset, metrics stay local (under the data folder). It identifies the component; not a secret.',
    local: 'empty',
    azure: 'the Application Insights component\u2019s',
    section: 'telemetry',
    schema: text(),
  }),
  workerRuntime: platform(
    'FUNCTIONS_WORKER_RUNTIME',
    'telemetry',
    '`func start`: the language worker to start',
    '`node`',
    'not set: the Flex Consumption plan takes the runtime (Node.js 20) from the app\u2019s `functionAppConfig`',
  ),
};
