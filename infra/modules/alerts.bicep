// Alerts as code: one Azure Monitor log search alert rule per condition the local host shows as an
// incident (src/telemetry/alert-conditions.ts lists them; test/unit/infra/alerts.test.ts checks this
// file and the queries in infra/alerts/ against that list and against the metrics the code emits).
// Each rule splits by its cause (queue, job or target connection), so one alert fires per cause,
// and resolves by itself once the condition no longer holds (autoMitigate).

@description('Region of the alert rules.')
param location string

@description('Tags of every resource.')
param tags object = {}

@description('Name prefix of the alert rules and the action group.')
param namePrefix string

@description('Resource id of the Application Insights component whose customMetrics the rules query.')
param appInsightsId string

@description('E-mail address told when an alert fires or resolves. Empty: no action group; the alerts still show in Azure Monitor.')
param alertEmail string = ''

@description('Dead letters rising: more messages in a dead-letter subqueue than at its lowest in the last 15 minutes.')
@minValue(1)
param alertDeadLetterRise int = 1

@description('Parked messages growing: more messages in a transitive queue than at its lowest in the last hour.')
@minValue(1)
param alertParkedRise int = 10

@description('Job failing repeatedly: failed runs in a row (since the last success, within a day).')
@minValue(1)
param alertJobFailedRuns int = 3

@description('Watermark lag beyond threshold: seconds the newest change a job read may be old. A source quiet for longer than this alerts too: set it above its longest quiet period.')
@minValue(60)
param alertLagSeconds int = 3600

// How often every rule runs its query.
var evaluationFrequency = 'PT5M'

// One entry per condition of src/telemetry/alert-conditions.ts (same id, window, split, severity).
var rules = [
  {
    id: 'deadLettersRising'
    displayName: 'Highwater: dead letters rising'
    description: 'A queue\'s dead-letter subqueue (a work, parked or ignored queue) holds at least ${alertDeadLetterRise} more messages than at its lowest in the last 15 minutes.'
    cause: 'queue'
    window: 'PT15M'
    severity: 2
    query: replace(loadTextContent('../alerts/dead-letters-rising.kql'), '{threshold}', string(alertDeadLetterRise))
  }
  {
    id: 'parkedGrowing'
    displayName: 'Highwater: parked messages growing'
    description: 'A transitive (parked) queue holds at least ${alertParkedRise} more messages than at its lowest in the last hour.'
    cause: 'queue'
    window: 'PT1H'
    severity: 3
    query: replace(loadTextContent('../alerts/parked-growing.kql'), '{threshold}', string(alertParkedRise))
  }
  {
    id: 'jobFailing'
    displayName: 'Highwater: job failing repeatedly'
    description: 'A job failed at least ${alertJobFailedRuns} runs in a row (since its last successful run, within the last day).'
    cause: 'job'
    window: 'P1D'
    severity: 1
    query: replace(loadTextContent('../alerts/job-failing.kql'), '{threshold}', string(alertJobFailedRuns))
  }
  {
    id: 'targetOutage'
    displayName: 'Highwater: target in outage'
    description: 'A target connection is in outage mode: its messages wait in their queues, one probe goes through per interval.'
    cause: 'connection'
    window: 'PT30M'
    severity: 1
    query: loadTextContent('../alerts/target-outage.kql')
  }
  {
    id: 'lagBeyond'
    displayName: 'Highwater: job behind its schedule'
    description: 'An enabled job has not finished a read of its source for more than ${alertLagSeconds} seconds after its schedule said it should.'
    cause: 'job'
    window: 'PT15M'
    severity: 2
    query: replace(loadTextContent('../alerts/lag-beyond.kql'), '{threshold}', string(alertLagSeconds))
  }
]

var notify = !empty(alertEmail)

// Action groups are global resources; the short name (at most 12 characters) is what an e-mail or SMS shows.
resource actionGroup 'Microsoft.Insights/actionGroups@2022-06-01' = if (notify) {
  name: '${namePrefix}-alerts'
  location: 'global'
  tags: tags
  properties: {
    groupShortName: 'highwater'
    enabled: true
    emailReceivers: [
      {
        name: 'operator'
        emailAddress: alertEmail
        useCommonAlertSchema: true
      }
    ]
  }
}

// Each query returns one row per cause in the condition (the threshold is applied inside it), so
// the rule counts rows per cause: more than none fires that cause's alert.
resource alertRules 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = [for rule in rules: {
  name: '${namePrefix}-${rule.id}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: rule.displayName
    description: rule.description
    severity: rule.severity
    enabled: true
    scopes: [
      appInsightsId
    ]
    evaluationFrequency: evaluationFrequency
    windowSize: rule.window
    criteria: {
      allOf: [
        {
          query: rule.query
          timeAggregation: 'Count'
          dimensions: [
            {
              name: rule.cause
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          operator: 'GreaterThan'
          threshold: 0
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: {
      actionGroups: notify ? [
        actionGroup.id
      ] : []
    }
  }
}]

output alertRuleNames string[] = [for (rule, i) in rules: alertRules[i].name]
output actionGroupId string = notify ? actionGroup.id : ''
