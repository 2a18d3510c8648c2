// Optional Key Vault for connector secrets. A connection names its secret by app setting (e.g.
// `passwordSetting: CRM_PASSWORD`); in Azure that setting holds a Key Vault reference the
// platform resolves with the app's identity, so the value never reaches tables, files or outputs.
// Access is by Azure RBAC only (no access policies).

@description('Vault name: 3-24 letters, digits and hyphens, unique in Azure.')
param name string

@description('Region.')
param location string

@description('Tags of every resource.')
param tags object = {}

@description('Principal id of the Function App identity: may read secrets.')
param appPrincipalId string

@description('Object id of the deployer: may set secrets. Empty: nobody (set them with another admin).')
param deployerPrincipalId string = ''

@description('Kind of deployerPrincipalId.')
@allowed(['User', 'ServicePrincipal'])
param deployerPrincipalType string = 'User'

var roleIds = {
  keyVaultSecretsUser: '4633458b-17de-408a-b874-0445c86b69e6'
  keyVaultSecretsOfficer: 'b86a8fe4-44ce-4948-aee5-eccb2c155cd7'
}

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    tenantId: tenant().tenantId
    sku: {
      family: 'A'
      name: 'standard'
    }
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: 7
    publicNetworkAccess: 'Enabled'
  }
}

resource appReadsSecrets 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(vault.id, appPrincipalId, roleIds.keyVaultSecretsUser)
  scope: vault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.keyVaultSecretsUser)
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

resource deployerSetsSecrets 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(deployerPrincipalId)) {
  name: guid(vault.id, deployerPrincipalId, roleIds.keyVaultSecretsOfficer)
  scope: vault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.keyVaultSecretsOfficer)
    principalId: deployerPrincipalId
    principalType: deployerPrincipalType
  }
}

output name string = vault.name
