// The user-assigned identity the Function App runs as. A user-assigned identity (rather than the
// app's system identity) exists before the app does, so that its roles are in place when the
// Functions host first starts, and it survives recreating the app.

@description('Name of the identity.')
param name string

@description('Region.')
param location string

@description('Tags of every resource.')
param tags object = {}

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: name
  location: location
  tags: tags
}

output id string = identity.id
output clientId string = identity.properties.clientId
output principalId string = identity.properties.principalId
