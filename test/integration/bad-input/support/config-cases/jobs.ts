import { connections, jobs, mappings, type ConfigCase, yamlOf } from '../config-folder';

/** Invalid jobs (schedule, watermark, references, limits, filters), and several problems at once. */
export const JOB_CASES: ConfigCase[] = [
  {
    name: 'job-schedule-five-fields',
    files: { 'jobs.yaml': jobs((j) => (j.schedule = '*/5 * * * *')) },
    expected: ['jobs.yaml: jobs[0].schedule: invalid NCRONTAB "*/5 * * * *": expected 6 fields (second minute hour day month weekday), got 5'],
  },
  {
    name: 'job-schedule-out-of-range',
    files: { 'jobs.yaml': jobs((j) => (j.schedule = '0 61 * * * *')) },
    expected: ['jobs.yaml: jobs[0].schedule: invalid NCRONTAB "0 61 * * * *": Constraint error, got value 61 expected range 0-59'],
  },
  {
    name: 'job-schedule-not-a-string',
    files: { 'jobs.yaml': jobs((j) => (j.schedule = 300)) },
    expected: ['jobs.yaml: jobs[0].schedule: expected a string, got number'],
  },
  {
    name: 'job-priority-unknown',
    files: { 'jobs.yaml': jobs((j) => (j.priority = 'urgent')) },
    expected: ['jobs.yaml: jobs[0].priority: expected one of "high", "normal", "low"; got "urgent"'],
  },
  {
    name: 'job-watermark-type-unknown',
    files: { 'jobs.yaml': jobs((j) => (j.watermark = { type: 'rowversion', field: 'v' })) },
    expected: ['jobs.yaml: jobs[0].watermark.type: expected one of datetime, date, number, string (case-insensitive); got "rowversion"'],
  },
  {
    name: 'job-watermark-without-field',
    files: { 'jobs.yaml': jobs((j) => (j.watermark = { type: 'datetime' })) },
    expected: ['jobs.yaml: jobs[0].watermark.field: required'],
  },
  { name: 'job-without-watermark', files: { 'jobs.yaml': jobs((j) => delete j.watermark) }, expected: ['jobs.yaml: jobs[0].watermark: required'] },
  {
    name: 'job-action-timestamp',
    files: { 'jobs.yaml': jobs((j) => (j.action = 'TimeStamp')) },
    expected: ['jobs.yaml: jobs[0].action: expected one of "NewUpdate", "Delete", "InvokeAction"; got "TimeStamp"'],
  },
  {
    name: 'job-invoke-without-action-name',
    files: { 'jobs.yaml': jobs((j) => (j.action = 'InvokeAction')) },
    expected: ['jobs.yaml: jobs[0].actionName: required when action is InvokeAction'],
  },
  {
    name: 'job-unknown-source',
    files: { 'jobs.yaml': jobs((j) => (j.source = 'crn')) },
    expected: ['jobs.yaml: jobs[0].source: unknown connection "crn" (known: crm, erp)'],
  },
  {
    name: 'job-unknown-mapping',
    files: { 'jobs.yaml': jobs((j) => (j.mapping = 'accounts')) },
    expected: ['jobs.yaml: jobs[0].mapping: unknown mapping "accounts" (known: account-to-customer, number-to-account)'],
  },
  {
    name: 'job-unknown-response-job',
    files: { 'jobs.yaml': jobs((j) => (j.responseJob = 'erp-number')) },
    expected: ['jobs.yaml: jobs[0].responseJob: unknown job "erp-number" (known: crm-accounts, erp-numbers)'],
  },
  {
    name: 'job-response-cycle',
    files: { 'jobs.yaml': yamlOf('jobs', (c) => (c.jobs[1].responseJob = 'crm-accounts')) },
    expected: [
      'jobs.yaml: jobs[0].responseJob: cycle crm-accounts → erp-numbers → crm-accounts',
      'jobs.yaml: jobs[1].responseJob: mapping "number-to-account" has no responseMapping, so nothing would be sent to "crm-accounts"',
    ],
  },
  {
    name: 'job-page-size-zero',
    files: { 'jobs.yaml': jobs((j) => (j.pageSize = 0)) },
    expected: ['jobs.yaml: jobs[0].pageSize: must be greater than 0'],
  },
  {
    name: 'job-transitive-retries-ten',
    files: { 'jobs.yaml': jobs((j) => (j.transitiveRetries = 10)) },
    expected: ['jobs.yaml: jobs[0].transitiveRetries: must be at most 9'],
  },
  {
    name: 'job-lookback-negative',
    files: { 'jobs.yaml': jobs((j) => (j.lookbackSeconds = -1)) },
    expected: ['jobs.yaml: jobs[0].lookbackSeconds: must be at least 0'],
  },
  {
    name: 'job-order-fraction',
    files: { 'jobs.yaml': jobs((j) => (j.order = 1.5)) },
    expected: ['jobs.yaml: jobs[0].order: expected an integer, got 1.5'],
  },
  {
    name: 'job-enabled-as-text',
    files: { 'jobs.yaml': jobs((j) => (j.enabled = 'yes')) },
    expected: ['jobs.yaml: jobs[0].enabled: expected a boolean, got string'],
  },
  {
    name: 'job-filter-unknown-operator',
    files: { 'jobs.yaml': jobs((j) => (j.filter = [{ field: 'amount', op: 'between', value: 3 }])) },
    expected: [
      'jobs.yaml: jobs[0].filter[0].op: expected one of "eq", "ne", "gt", "ge", "lt", "le", "in", "notIn", "like", "isNull", "isNotNull"; got "between"',
    ],
  },
  {
    name: 'job-filter-in-without-list',
    files: { 'jobs.yaml': jobs((j) => (j.filter = [{ field: 'city', op: 'in', value: 'Bern' }])) },
    expected: ['jobs.yaml: jobs[0].filter[0].value: op "in" needs a list value'],
  },
  {
    name: 'job-soft-delete-null-compare',
    files: { 'jobs.yaml': jobs((j) => (j.softDelete = { field: 'deleted', op: 'eq', value: null })) },
    expected: ['jobs.yaml: jobs[0].softDelete.value: op "eq" cannot compare with null; use "isNull" or "isNotNull"'],
  },
  {
    name: 'job-name-with-slash',
    files: { 'jobs.yaml': jobs((j) => (j.name = 'crm/accounts')) },
    expected: ['jobs.yaml: jobs[0].name: must not contain / \\ # ? or control characters'],
  },
  {
    name: 'job-duplicate-name',
    files: { 'jobs.yaml': jobs((j) => (j.name = 'crm-accounts'), 1) },
    expected: [
      'jobs.yaml: jobs[0].responseJob: unknown job "erp-numbers" (known: crm-accounts)',
      'jobs.yaml: jobs[1].name: duplicate job name "crm-accounts" (also jobs[0])',
    ],
  },
  {
    name: 'job-property-typo',
    files: { 'jobs.yaml': jobs((j) => ((j.schedul = j.schedule), delete j.schedule)) },
    expected: ['jobs.yaml: jobs[0].schedule: required', 'jobs.yaml: jobs[0].schedul: unknown property; did you mean schedule?'],
  },

  // Several problems at once: all are reported, in file order.
  {
    name: 'problems-in-every-file',
    files: {
      'connections.yaml': connections((c) => (c.maxConcurrency = -1)),
      'mappings.yaml': mappings((m) => (m.fields = [])),
      'jobs.yaml': jobs((j) => ((j.priority = 'top'), (j.pageSize = 0))),
    },
    expected: [
      'connections.yaml: connections[0].maxConcurrency: must be greater than 0',
      'mappings.yaml: mappings[0].fields: must have at least 1 item',
      'jobs.yaml: jobs[0].priority: expected one of "high", "normal", "low"; got "top"',
      'jobs.yaml: jobs[0].pageSize: must be greater than 0',
    ],
  },
];
