// Highwater on Azure: one resource group holding the storage account (Highwater's tables and the
// Functions host), the Service Bus namespace with every queue, the Function App (Flex
// Consumption), monitoring (Log Analytics, Application Insights, the workbook, alert rules), an optional Key
// Vault for connector secrets, and the user-assigned identity everything is reached with.
//
//   deploy:        azd up                                   (docs/deployment.md)
//   compile-check: az bicep build --file infra/main.bicep   (or: bicep build infra/main.bicep)
//
// App settings are declared in objects named `*Settings` (here and in modules/function-app.bicep):
// test/unit/infra/consistency.test.ts reads them and checks them against the settings the code
// reads and against local.settings.example.json. No connection string is set in Azure: every
// connection is identity-based.

targetScope = 'subscription'

@minLength(1)
@maxLength(64)
@description('azd environment name: names the resource group and seeds the unique suffix of resource names.')
param environmentName string

@minLength(1)
@description('Region of every resource; it must offer the Flex Consumption plan.')
@metadata({ azd: { type: 'location' } })
param location string

@description('Object id of the person (or pipeline) deploying; gets the data roles `highwater config push` and the dead-letter mover need. Empty: none.')
param principalId string = ''

@description('Kind of principalId.')
@allowed(['User', 'ServicePrincipal'])
param principalType string = 'User'

@description('Service Bus tier. Premium gives dedicated capacity, larger messages and network isolation.')
@allowed(['Standard', 'Premium'])
param serviceBusSku string = 'Standard'

@description('Messaging units of a Premium namespace (ignored for Standard).')
@allowed([1, 2, 4, 8, 16])
param serviceBusPremiumCapacity int = 1

@description('Node.js major version of the Function App. Node 20 reached its end of life on 2026-04-30; the code still runs on it.')
@allowed(['20', '22'])
param nodeVersion string = '22'

@description('Most instances the Flex Consumption plan scales out to.')
@maxValue(1000)
param maximumInstanceCount int = 100

@description('Memory of each Flex Consumption instance, in MB.')
@allowed([512, 2048, 4096])
param instanceMemoryMB int = 2048

@description('NCRONTAB (6 fields, with seconds) of the GetChanges timer: how often due jobs are looked for. Each job has its own schedule on top.')
param getChangesSchedule string = '*/10 * * * * *'

@description('IANA time zone the job schedules are read in.')
param timeZone string = 'UTC'

@description('Create a Key Vault for connector secrets even when connectorSecrets is empty (to fill it first).')
param enableKeyVault bool = false

@description('A connector secret: the app setting a connection names (e.g. its passwordSetting) and the Key Vault secret holding the value.')
type connectorSecret = {
  @description('App setting name, e.g. CRM_PASSWORD.')
  setting: string
  @description('Secret name in the Key Vault, e.g. crm-password.')
  secretName: string
}

@description('Connector secrets to expose as Key Vault references in app settings; the values are set in the vault, never here.')
param connectorSecrets connectorSecret[] = []

@description('E-mail address told when an alert fires or resolves (infra/modules/alerts.bicep). Empty: no action group; the alerts still show in Azure Monitor.')
param alertEmail string = ''

@description('Alert: dead letters rising by this many messages within 15 minutes.')
@minValue(1)
param alertDeadLetterRise int = 1

@description('Alert: parked (transitive) messages growing by this many within an hour.')
@minValue(1)
param alertParkedRise int = 10

@description('Alert: a job failing this many runs in a row.')
@minValue(1)
param alertJobFailedRuns int = 3

@description('Alert: the newest change a job read older than this many seconds (datetime watermarks; a source quiet for longer alerts too).')
@minValue(60)
param alertLagSeconds int = 3600

var resourceToken = toLower(uniqueString(subscription().id, environmentName, location))
var tags = {
  'azd-env-name': environmentName
}
var names = {
  resourceGroup: 'rg-${environmentName}'
  identity: 'id-highwater-${resourceToken}'
  storage: 'st${resourceToken}'
  serviceBus: 'sb-highwater-${resourceToken}'
  logAnalytics: 'log-highwater-${resourceToken}'
  appInsights: 'appi-highwater-${resourceToken}'
  plan: 'plan-highwater-${resourceToken}'
  functionApp: 'func-highwater-${resourceToken}'
  keyVault: 'kv-hw-${resourceToken}'
  alerts: 'highwater-${resourceToken}'
  deploymentContainer: 'app-package'
}

// The tables of src/config/config-store.ts (CONFIG_TABLES), src/detect/watermark-service.ts,
// src/detect/run-log-store.ts, src/http/run-status-store.ts, src/process/applied-hash-store.ts and
// src/process/deletion-store.ts, src/twoway/table-coupling-store.ts (couplings and parked conflicts
// of two-way pairs); 'highwaterlocal' (src/storage/table-client-factory.ts) is written
// only by a local Azurite's host and stays empty in Azure.
// The code creates missing tables too; declaring them keeps the account's contents visible and
// reviewable.
var tableNames = [
  'connections'
  'mappings'
  'jobs'
  'pairs'
  'watermark'
  'runs'
  'runstatus'
  'appliedhashes'
  'appliedversions'
  'targetrecoveries'
  'deletions'
  'couplings'
  'pairconflicts'
  'highwaterlocal'
]

// The queues (docs/architecture.md): the app setting naming each queue, and the queue (the code's defaults in
// src/platform/settings.ts). The Service Bus module creates exactly these queues.
var queueSettings = {
  QUEUE_HIGH: 'sbqhigh'
  QUEUE_NORMAL: 'sbqnormal'
  QUEUE_LOW: 'sbqlow'
  QUEUE_TRANSITIVE_HIGH: 'sbqtransitivehigh'
  QUEUE_TRANSITIVE_NORMAL: 'sbqtransitivenormal'
  QUEUE_TRANSITIVE_LOW: 'sbqtransitivelow'
  QUEUE_IGNORED: 'sbqignored'
}

// Settings Highwater's code reads (declared in src/platform/app-settings.ts; docs/settings.md).
var highwaterSettings = {
  // Tables through the identity (src/storage/table-client-factory.ts), not AzureWebJobsStorage.
  HIGHWATER_TABLES_ENDPOINT: storage.outputs.tableEndpoint
  // One connection for the code (src/bus/create-bus.ts) and the Service Bus triggers
  // (connection `ServiceBusConnection`).
  ServiceBusConnection__fullyQualifiedNamespace: serviceBus.outputs.fullyQualifiedNamespace
  ServiceBusConnection__credential: 'managedidentity'
  ServiceBusConnection__clientId: identity.outputs.clientId
  // DefaultAzureCredential in the code picks the user-assigned identity by this client id.
  AZURE_CLIENT_ID: identity.outputs.clientId
  GetChangesSchedule: getChangesSchedule
  HIGHWATER_TIMEZONE: timeZone
  // How long ExecuteJob waits for its run before answering 202 (src/http/execute-wait.ts): well
  // under the 230 s after which Azure's front end drops an HTTP request.
  HIGHWATER_EXECUTE_WAIT_SECONDS: '100'
  // The scheduled requeue of parked messages (functions/RequeueParked.ts): a folder of the
  // deployed app holding requeue.yaml; empty = off, as the specification keeps parked queues manual.
  HIGHWATER_REQUEUE_CONFIG: ''
  // The Service Bus queue a Dataverse service endpoint posts its events to (functions/
  // ReceiveDataverseEvents.ts, registered only when set); empty = no such function.
  HIGHWATER_DATAVERSE_EVENTS_QUEUE: ''
  // Nothing local is kept in Azure; a writable folder in case a component wants scratch space.
  HIGHWATER_DATA_DIR: '/tmp/highwater'
  // Read only when no storage is set, which Azure never is (the local Azurite's port).
  HIGHWATER_AZURITE_PORT: '10002'
  // Read only when no storage is set, which Azure never is (where the local host keeps its tables).
  HIGHWATER_LOCAL_TABLES: 'azurite'
  // Read by the embedded bus only, which Azure never opens (Service Bus is set above).
  HIGHWATER_LOCAL_BUS_SYNCHRONOUS: 'NORMAL'
  // Read by the local host only (where its queue processors run); the Functions app scales out by instances.
  HIGHWATER_LOCAL_PROCESSING: 'inline'
}

var useKeyVault = enableKeyVault || !empty(connectorSecrets)

// Key Vault references, resolved by the platform with the app's identity (keyVaultReferenceIdentity).
var connectorSecretReferences = toObject(connectorSecrets, secret => secret.setting, secret => '@Microsoft.KeyVault(VaultName=${names.keyVault};SecretName=${secret.secretName})')

resource rg 'Microsoft.Resources/resourceGroups@2024-03-01' = {
  name: names.resourceGroup
  location: location
  tags: tags
}

module identity 'modules/identity.bicep' = {
  name: 'identity'
  scope: rg
  params: {
    name: names.identity
    location: location
    tags: tags
  }
}

module storage 'modules/storage.bicep' = {
  name: 'storage'
  scope: rg
  params: {
    name: names.storage
    location: location
    tags: tags
    deploymentContainerName: names.deploymentContainer
    tableNames: tableNames
  }
}

module serviceBus 'modules/service-bus.bicep' = {
  name: 'service-bus'
  scope: rg
  params: {
    name: names.serviceBus
    location: location
    tags: tags
    sku: serviceBusSku
    premiumCapacity: serviceBusPremiumCapacity
    queueNames: map(items(queueSettings), queue => queue.value)
  }
}

module monitoring 'modules/monitoring.bicep' = {
  name: 'monitoring'
  scope: rg
  params: {
    logAnalyticsName: names.logAnalytics
    appInsightsName: names.appInsights
    location: location
    tags: tags
  }
}

// The alert rules on the metrics in Application Insights, and an e-mail action group when alertEmail is set.
module alerts 'modules/alerts.bicep' = {
  name: 'alerts'
  scope: rg
  params: {
    location: location
    tags: tags
    namePrefix: names.alerts
    appInsightsId: monitoring.outputs.appInsightsId
    alertEmail: alertEmail
    alertDeadLetterRise: alertDeadLetterRise
    alertParkedRise: alertParkedRise
    alertJobFailedRuns: alertJobFailedRuns
    alertLagSeconds: alertLagSeconds
  }
}

module roles 'modules/role-assignments.bicep' = {
  name: 'role-assignments'
  scope: rg
  params: {
    storageAccountName: storage.outputs.name
    serviceBusNamespaceName: serviceBus.outputs.name
    // Every queue: the work queues for target-based scaling, all of them for the QueueDepth gauge.
    countedQueueNames: serviceBus.outputs.queueNames
    appPrincipalId: identity.outputs.principalId
    deployerPrincipalId: principalId
    deployerPrincipalType: principalType
  }
}

module keyVault 'modules/key-vault.bicep' = if (useKeyVault) {
  name: 'key-vault'
  scope: rg
  params: {
    name: names.keyVault
    location: location
    tags: tags
    appPrincipalId: identity.outputs.principalId
    deployerPrincipalId: principalId
    deployerPrincipalType: principalType
  }
}

module functionApp 'modules/function-app.bicep' = {
  name: 'function-app'
  scope: rg
  params: {
    name: names.functionApp
    planName: names.plan
    location: location
    tags: tags
    identityId: identity.outputs.id
    identityClientId: identity.outputs.clientId
    storageAccountName: storage.outputs.name
    deploymentContainerUrl: '${storage.outputs.blobEndpoint}${names.deploymentContainer}'
    appInsightsName: monitoring.outputs.appInsightsName
    nodeVersion: nodeVersion
    maximumInstanceCount: maximumInstanceCount
    instanceMemoryMB: instanceMemoryMB
    appSettings: union(highwaterSettings, queueSettings, connectorSecretReferences)
  }
  // The host reaches storage and Service Bus with the identity from its first start.
  dependsOn: [
    roles
    keyVault
  ]
}

// Read by azd into the environment (`azd env get-values`): names and endpoints, never a secret.
// The two endpoint outputs carry the setting names the CLI reads, so that
// `eval "$(azd env get-values)"` points `highwater` at the deployed tables and namespace.
output AZURE_LOCATION string = location
output AZURE_TENANT_ID string = tenant().tenantId
output AZURE_RESOURCE_GROUP string = rg.name
output AZURE_FUNCTION_APP_NAME string = functionApp.outputs.name
output HIGHWATER_FUNCTION_URL string = 'https://${functionApp.outputs.defaultHostName}'
output HIGHWATER_TABLES_ENDPOINT string = storage.outputs.tableEndpoint
output ServiceBusConnection__fullyQualifiedNamespace string = serviceBus.outputs.fullyQualifiedNamespace
output KEY_VAULT_NAME string = useKeyVault ? names.keyVault : ''
