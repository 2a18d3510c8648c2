// One storage account for Highwater's tables and for the Functions host (deployment packages,
// timers, keys, Durable Functions task hub). Reached only with identities: account keys are off,
// so no connection string exists to leak.

@description('Account name: 3-24 lowercase letters and digits, unique in Azure.')
param name string

@description('Region.')
param location string

@description('Tags of every resource.')
param tags object = {}

@description('Blob container the Flex Consumption plan deploys the app package to.')
param deploymentContainerName string

@description('Tables Highwater reads and writes.')
param tableNames string[]

resource account 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: name
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: 'Standard_LRS'
  }
  properties: {
    allowSharedKeyAccess: false
    defaultToOAuthAuthentication: true
    allowBlobPublicAccess: false
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    publicNetworkAccess: 'Enabled'
  }
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: account
  name: 'default'
}

resource deploymentContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: deploymentContainerName
  properties: {
    publicAccess: 'None'
  }
}

resource tableService 'Microsoft.Storage/storageAccounts/tableServices@2023-05-01' = {
  parent: account
  name: 'default'
}

resource tables 'Microsoft.Storage/storageAccounts/tableServices/tables@2023-05-01' = [
  for table in tableNames: {
    parent: tableService
    name: table
  }
]

output name string = account.name
@description('Blob endpoint with a trailing slash, e.g. https://<account>.blob.core.windows.net/.')
output blobEndpoint string = account.properties.primaryEndpoints.blob
@description('Table endpoint without a trailing slash: the value of HIGHWATER_TABLES_ENDPOINT.')
output tableEndpoint string = 'https://${account.name}.table.${environment().suffixes.storage}'
