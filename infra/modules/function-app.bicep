// The Function App on a Flex Consumption plan (Linux, Node.js), running as the user-assigned
// identity. The Functions host and Durable Functions reach storage with that identity too.

@description('Function App name (also its default host name).')
param name string

@description('Flex Consumption plan name.')
param planName string

@description('Region.')
param location string

@description('Tags of every resource.')
param tags object = {}

@description('Resource id of the user-assigned identity the app runs as.')
param identityId string

@description('Client id of that identity; identity-based connections name it.')
param identityClientId string

@description('Storage account of the Functions host (AzureWebJobsStorage) and Durable Functions.')
param storageAccountName string

@description('URL of the blob container the plan deploys the app package to.')
param deploymentContainerUrl string

@description('Application Insights component the app reports to.')
param appInsightsName string

@description('Node.js major version.')
@allowed(['20', '22'])
param nodeVersion string = '22'

@description('Most instances the plan scales out to.')
param maximumInstanceCount int = 100

@description('Memory of each instance, in MB.')
@allowed([512, 2048, 4096])
param instanceMemoryMB int = 2048

@description('Highwater\'s own app settings (names checked against the code by test/unit/infra/consistency.test.ts).')
param appSettings object

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

// Read by the Functions host, Durable Functions and, for Application Insights, the code
// (src/telemetry/create-telemetry.ts). The Flex plan takes runtime and version from
// functionAppConfig, not from FUNCTIONS_WORKER_RUNTIME / FUNCTIONS_EXTENSION_VERSION.
var hostSettings = {
  AzureWebJobsStorage__accountName: storageAccountName
  AzureWebJobsStorage__credential: 'managedidentity'
  AzureWebJobsStorage__clientId: identityClientId
  // Identifies the component (not a secret); ingestion is what it grants.
  APPLICATIONINSIGHTS_CONNECTION_STRING: appInsights.properties.ConnectionString
}

resource plan 'Microsoft.Web/serverfarms@2024-04-01' = {
  name: planName
  location: location
  tags: tags
  kind: 'functionapp'
  sku: {
    tier: 'FlexConsumption'
    name: 'FC1'
  }
  properties: {
    reserved: true
  }
}

resource app 'Microsoft.Web/sites@2024-04-01' = {
  name: name
  location: location
  // azd deploys the service `api` of azure.yaml to the app carrying this tag.
  tags: union(tags, {
    'azd-service-name': 'api'
  })
  kind: 'functionapp,linux'
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identityId}': {}
    }
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    keyVaultReferenceIdentity: identityId
    functionAppConfig: {
      deployment: {
        storage: {
          type: 'blobContainer'
          value: deploymentContainerUrl
          authentication: {
            type: 'UserAssignedIdentity'
            userAssignedIdentityResourceId: identityId
          }
        }
      }
      scaleAndConcurrency: {
        maximumInstanceCount: maximumInstanceCount
        instanceMemoryMB: instanceMemoryMB
      }
      runtime: {
        name: 'node'
        version: nodeVersion
      }
    }
  }
}

// The complete set of app settings (it replaces whatever was set before). A child resource, as
// values such as the Application Insights string are known only during the deployment.
resource settings 'Microsoft.Web/sites/config@2024-04-01' = {
  parent: app
  name: 'appsettings'
  properties: union(appSettings, hostSettings)
}

output name string = app.name
output defaultHostName string = app.properties.defaultHostName
