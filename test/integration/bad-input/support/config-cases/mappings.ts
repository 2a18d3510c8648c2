import { field, mappings, type ConfigCase } from '../config-folder';

/** Invalid mappings: keys, field mappings, operations, resolvers, response mappings. */
export const MAPPING_CASES: ConfigCase[] = [
  {
    name: 'mapping-without-source-key',
    files: { 'mappings.yaml': mappings((m) => (m.source = { entity: 'accounts' })) },
    expected: ['mappings.yaml: mappings[0].source.key: required'],
  },
  {
    name: 'mapping-empty-target-key',
    files: { 'mappings.yaml': mappings((m) => (m.target = { entity: 'customers', key: [] })) },
    expected: ['mappings.yaml: mappings[0].target.key: must have at least 1 item'],
  },
  {
    name: 'mapping-no-fields',
    files: { 'mappings.yaml': mappings((m) => (m.fields = [])) },
    expected: ['mappings.yaml: mappings[0].fields: must have at least 1 item'],
  },
  {
    name: 'mapping-source-and-constant',
    files: { 'mappings.yaml': mappings(field(1, { target: 'name', source: 'name', constant: 'x' })) },
    expected: ['mappings.yaml: mappings[0].fields[1]: give either source or constant, not both'],
  },
  {
    name: 'mapping-neither-source-nor-constant',
    files: { 'mappings.yaml': mappings(field(1, { target: 'name' })) },
    expected: ['mappings.yaml: mappings[0].fields[1]: give source or constant'],
  },
  {
    name: 'mapping-unknown-operation',
    files: { 'mappings.yaml': mappings(field(1, { target: 'name', source: 'name', operations: [{ op: 'capitalize' }] })) },
    expected: [
      'mappings.yaml: mappings[0].fields[1].operations[0].op: expected one of "trim", "upper", "lower", "concat", "formatDate", "formatNumber", "default", "constant", "valueMap"; got "capitalize"',
    ],
  },
  {
    name: 'mapping-concat-without-fields',
    files: { 'mappings.yaml': mappings(field(1, { target: 'name', source: 'name', operations: [{ op: 'concat' }] })) },
    expected: ['mappings.yaml: mappings[0].fields[1].operations[0].fields: required'],
  },
  {
    name: 'mapping-format-date-bad-zone',
    files: { 'mappings.yaml': mappings(field(1, { target: 'name', source: 'name', operations: [{ op: 'formatDate', format: 'yyyy', zone: 'Mars/Olympus' }] })) },
    expected: ['mappings.yaml: mappings[0].fields[1].operations[0].zone: unknown time zone "Mars/Olympus"'],
  },
  {
    name: 'mapping-format-number-negative',
    files: { 'mappings.yaml': mappings(field(1, { target: 'name', source: 'name', operations: [{ op: 'formatNumber', decimals: -1 }] })) },
    expected: ['mappings.yaml: mappings[0].fields[1].operations[0].decimals: must be at least 0'],
  },
  {
    name: 'mapping-value-map-nested',
    files: { 'mappings.yaml': mappings(field(1, { target: 'name', source: 'name', operations: [{ op: 'valueMap', map: { a: { b: 1 } } }] })) },
    expected: ['mappings.yaml: mappings[0].fields[1].operations[0].map.a: expected a string, a number, a boolean or null, got object'],
  },
  {
    name: 'mapping-resolver-on-missing',
    files: { 'mappings.yaml': mappings(field(1, { target: 'name', source: 'name', resolver: { entity: 'e', matchField: 'm', returnField: 'r', onMissing: 'skip' } })) },
    expected: ['mappings.yaml: mappings[0].fields[1].resolver.onMissing: expected one of "null", "transitive", "error"; got "skip"'],
  },
  {
    name: 'mapping-duplicate-target-field',
    files: { 'mappings.yaml': mappings(field(1, { target: 'crm_id', source: 'name' })) },
    expected: ['mappings.yaml: mappings[0].fields[1].target: duplicate target field "crm_id" (also fields[0])'],
  },
  {
    name: 'mapping-key-not-mapped',
    files: { 'mappings.yaml': mappings((m) => (m.target = { entity: 'customers', key: ['customer_no'] })) },
    expected: ['mappings.yaml: mappings[0].target.key[0]: key field "customer_no" is not a mapped target field (fields[].target)'],
  },
  {
    name: 'mapping-response-without-to',
    files: { 'mappings.yaml': mappings((m) => (m.responseMapping = [{ from: 'customer_no' }])) },
    expected: ['mappings.yaml: mappings[0].responseMapping[0].to: required'],
  },
  {
    name: 'mapping-duplicate-name',
    files: { 'mappings.yaml': mappings((m) => (m.name = 'account-to-customer'), 1) },
    expected: [
      'mappings.yaml: mappings[1].name: duplicate mapping name "account-to-customer" (also mappings[0])',
      'jobs.yaml: jobs[1].mapping: unknown mapping "number-to-account" (known: account-to-customer)',
    ],
  },
];
