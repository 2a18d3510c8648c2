// Log Analytics, Application Insights on top of it, and the Highwater workbook.

@description('Log Analytics workspace name.')
param logAnalyticsName string

@description('Application Insights component name.')
param appInsightsName string

@description('Region.')
param location string

@description('Tags of every resource.')
param tags object = {}

@description('Days Log Analytics keeps data (Application Insights is workspace-based: its telemetry too). The specification keeps telemetry 90 days.')
@minValue(30)
@maxValue(730)
param retentionInDays int = 90

resource logAnalytics 'Microsoft.OperationalInsights/workspaces@2023-09-01' = {
  name: logAnalyticsName
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: retentionInDays
  }
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: appInsightsName
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: logAnalytics.id
  }
}

// Changes detected, messages processed by outcome, queue depths: see infra/workbook/.
resource workbook 'Microsoft.Insights/workbooks@2023-06-01' = {
  name: guid(resourceGroup().id, appInsightsName, 'highwater-workbook')
  location: location
  tags: tags
  kind: 'shared'
  properties: {
    displayName: 'Highwater'
    category: 'workbook'
    sourceId: appInsights.id
    serializedData: loadTextContent('../workbook/highwater.workbook.json')
  }
}

output appInsightsName string = appInsights.name
output appInsightsId string = appInsights.id
output workbookId string = workbook.id
