import { type ConfigCase, yamlOf } from '../config-folder';

/** Invalid folders and files: missing, doubled, unparsable, or with the wrong top level. */
export const STRUCTURE_CASES: ConfigCase[] = [
  { name: 'no-jobs-file', files: { 'jobs.yaml': null }, expected: ['{dir}: no jobs file (expected one of jobs.json, jobs.yaml, jobs.yml)'] },
  {
    name: 'two-connections-files',
    files: { 'connections.json': '{"connections":[]}' },
    expected: ['{dir}: more than one connections file (connections.json, connections.yaml); keep exactly one'],
  },
  {
    name: 'yaml-syntax-error',
    files: { 'jobs.yaml': 'jobs:\n  - name: a\n   schedule: "0 * * * * *"\n' },
    expected: ['jobs.yaml: YAML syntax error at line 3, column 1: Sequence item without - indicator'],
  },
  {
    name: 'yaml-tab-indent',
    files: { 'jobs.yaml': 'jobs:\n\t- name: a\n' },
    expected: ['jobs.yaml: YAML syntax error at line 2, column 1: Tabs are not allowed as indentation'],
  },
  {
    name: 'yaml-duplicate-key',
    files: { 'jobs.yaml': 'jobs: []\njobs: []\n' },
    expected: ['jobs.yaml: YAML syntax error at line 2, column 1: Map keys must be unique'],
  },
  {
    name: 'json-trailing-comma',
    files: { 'connections.yaml': null, 'connections.json': '{"connections": [{"name": "crm", "type": "sqlite",}]}' },
    expected: ['connections.json: JSON syntax error at line 1, column 51: Expected double-quoted property name'],
  },
  {
    name: 'json-truncated',
    files: { 'connections.yaml': null, 'connections.json': '{"connections": [' },
    expected: ['connections.json: JSON syntax error at line 1, column 18: unexpected end of input'],
  },
  {
    name: 'json-secret-in-broken-text',
    files: { 'connections.yaml': null, 'connections.json': '{"connections": [{"password": "hunter2" "x": 1}]}' },
    expected: ['connections.json: JSON syntax error at line 1, column 41: Expected \',\' or \'}\' after property value'],
  },
  { name: 'empty-file', files: { 'jobs.yaml': '' }, expected: ['jobs.yaml: expected an object with a top-level "jobs" list, got null'] },
  {
    name: 'top-level-list',
    files: { 'jobs.yaml': '- name: a\n' },
    expected: ['jobs.yaml: expected an object with a top-level "jobs" list, got list'],
  },
  { name: 'top-level-key-typo', files: { 'jobs.yaml': 'job: []\n' }, expected: ['jobs.yaml: job: unknown property; did you mean jobs?', 'jobs.yaml: jobs: required'] },
  {
    name: 'top-level-not-a-list',
    files: { 'mappings.yaml': 'mappings:\n  name: x\n' },
    expected: ['mappings.yaml: mappings: expected a list, got object'],
  },
  {
    name: 'schema-not-a-string',
    files: { 'jobs.yaml': `$schema: 42\n${yamlOf('jobs', () => {})}` },
    expected: ['jobs.yaml: $schema: expected a string'],
  },
];
