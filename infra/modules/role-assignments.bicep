// Least-privilege data roles. The app's identity gets exactly what the Functions host, Durable
// Functions and Highwater need; the deployer (optional) gets what the CLI tools need. No
// management-plane role is granted. "Data Owner" on Service Bus is granted per queue, never on
// the namespace: reading a queue's runtime properties (message counts) needs the Manage claim.

@description('Storage account holding the tables and the Functions host data.')
param storageAccountName string

@description('Service Bus namespace holding the queues.')
param serviceBusNamespaceName string

@description('Principal id of the Function App identity.')
param appPrincipalId string

@description('Queues whose message counts the app reads: the work queues for target-based scaling, every queue for the QueueDepth gauge. The app gets Data Owner on each of them (not on the namespace).')
param countedQueueNames string[]

@description('Object id of the deployer; empty: no roles for a person.')
param deployerPrincipalId string = ''

@description('Kind of deployerPrincipalId.')
@allowed(['User', 'ServicePrincipal'])
param deployerPrincipalType string = 'User'

// Built-in role definition ids (the same in every tenant).
var roleIds = {
  storageBlobDataOwner: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b'
  storageQueueDataContributor: '974c5e8b-45b9-4653-ba55-5f855dd0fb88'
  storageTableDataContributor: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'
  serviceBusDataSender: '69a216fc-b8fb-44d8-bc22-1f3c2cd27a39'
  serviceBusDataReceiver: '4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0'
  serviceBusDataOwner: '090c5cfd-751d-490a-894a-3ce6f1109419'
}

var appStorageRoles = [
  // Functions host (AzureWebJobsStorage): deployment package, timer leases, keys.
  roleIds.storageBlobDataOwner
  // Durable Functions (Azure Storage provider): its work-item and control queues.
  roleIds.storageQueueDataContributor
  // Highwater's tables, and the Durable Functions history and instance tables.
  roleIds.storageTableDataContributor
]
var serviceBusRoles = [
  roleIds.serviceBusDataSender
  roleIds.serviceBusDataReceiver
]
// Per counted queue. Target-based scaling (Flex Consumption) reads the work queues' active
// message count through the administration API (GetQueueRuntimeProperties), which needs Manage;
// without it the scaler cannot follow queue length (Azure/azure-functions-host#8892). The
// QueueDepth gauge (functions/SampleGauges.ts) reads the same properties of every queue.
var queueOwnerRole = roleIds.serviceBusDataOwner
// `highwater config push|pull`, `highwater watermark …`.
var deployerStorageRoles = [
  roleIds.storageTableDataContributor
]

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource namespace 'Microsoft.ServiceBus/namespaces@2024-01-01' existing = {
  name: serviceBusNamespaceName
}

resource appOnStorage 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for roleId in appStorageRoles: {
    name: guid(storage.id, appPrincipalId, roleId)
    scope: storage
    properties: {
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleId)
      principalId: appPrincipalId
      principalType: 'ServicePrincipal'
    }
  }
]

resource appOnServiceBus 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for roleId in serviceBusRoles: {
    name: guid(namespace.id, appPrincipalId, roleId)
    scope: namespace
    properties: {
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleId)
      principalId: appPrincipalId
      principalType: 'ServicePrincipal'
    }
  }
]

resource countedQueues 'Microsoft.ServiceBus/namespaces/queues@2024-01-01' existing = [
  for queueName in countedQueueNames: {
    parent: namespace
    name: queueName
  }
]

resource appOwnsCountedQueues 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for (queueName, i) in countedQueueNames: {
    name: guid(namespace.id, queueName, appPrincipalId, queueOwnerRole)
    scope: countedQueues[i]
    properties: {
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', queueOwnerRole)
      principalId: appPrincipalId
      principalType: 'ServicePrincipal'
    }
  }
]

resource deployerOnStorage 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for roleId in deployerStorageRoles: if (!empty(deployerPrincipalId)) {
    name: guid(storage.id, deployerPrincipalId, roleId)
    scope: storage
    properties: {
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleId)
      principalId: deployerPrincipalId
      principalType: deployerPrincipalType
    }
  }
]

// The dead-letter mover receives from and resends to the queues.
resource deployerOnServiceBus 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for roleId in serviceBusRoles: if (!empty(deployerPrincipalId)) {
    name: guid(namespace.id, deployerPrincipalId, roleId)
    scope: namespace
    properties: {
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleId)
      principalId: deployerPrincipalId
      principalType: deployerPrincipalType
    }
  }
]
