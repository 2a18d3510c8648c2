// The Service Bus namespace and the queues of docs/architecture.md. Local (SAS) authentication is off:
// the app and people reach it with Microsoft Entra identities only.

@description('Namespace name, unique in Azure.')
param name string

@description('Region.')
param location string

@description('Tags of every resource.')
param tags object = {}

@description('Tier. A Standard namespace cannot be changed to Premium in place: migrate, or choose Premium up front.')
@allowed(['Standard', 'Premium'])
param sku string = 'Standard'

@description('Messaging units of a Premium namespace (ignored for Standard).')
@allowed([1, 2, 4, 8, 16])
param premiumCapacity int = 1

@description('Every queue the app uses: work, transitive and ignored.')
param queueNames string[]

resource namespace 'Microsoft.ServiceBus/namespaces@2024-01-01' = {
  name: name
  location: location
  tags: tags
  sku: {
    name: sku
    tier: sku
    capacity: sku == 'Premium' ? premiumCapacity : null
  }
  properties: {
    disableLocalAuth: true
    minimumTlsVersion: '1.2'
    publicNetworkAccess: 'Enabled'
  }
}

// The same properties as the local bus's defaults (src/bus/local/options.ts) and, within the
// emulator's limits, as infra/local/Config.json.
resource queues 'Microsoft.ServiceBus/namespaces/queues@2024-01-01' = [
  for queueName in queueNames: {
    parent: namespace
    name: queueName
    properties: {
      // Renewed every 30 s from the start of a batch invocation (functions/support/lock-keeper.ts),
      // so no step may keep the event loop busy for more than ~25 s. A longer lock would only
      // delay the redelivery of messages whose worker died (docs/internals.md, "Azure: batch triggers").
      lockDuration: 'PT1M'
      // After the 10th failed delivery the broker dead-letters the message.
      maxDeliveryCount: 10
      // As each message's own time to live (src/bus/message-properties.ts).
      defaultMessageTimeToLive: 'P14D'
      // Message ids are deterministic: a resend after a broken-off batch is dropped.
      requiresDuplicateDetection: true
      duplicateDetectionHistoryTimeWindow: 'PT10M'
      // An expired message is kept for analysis, not lost.
      deadLetteringOnMessageExpiration: true
      requiresSession: false
      enablePartitioning: false
    }
  }
]

output name string = namespace.name
@description('The queues created, once they exist (role assignments on them depend on this output).')
output queueNames string[] = [for (queueName, i) in queueNames: queues[i].name]
@description('Host name only (<name>.servicebus.windows.net), as identity-based connections expect.')
output fullyQualifiedNamespace string = split(replace(namespace.properties.serviceBusEndpoint, 'https://', ''), ':')[0]
