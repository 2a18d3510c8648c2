import { connections, type ConfigCase } from '../config-folder';

/** Invalid connections, including literal secrets and settings only the connector knows are wrong. */
export const CONNECTION_CASES: ConfigCase[] = [
  {
    name: 'connection-without-name',
    files: { 'connections.yaml': connections((c) => delete c.name) },
    expected: [
      'connections.yaml: connections[0].name: required',
      'jobs.yaml: jobs[0].source: unknown connection "crm" (known: erp)',
      'jobs.yaml: jobs[1].target: unknown connection "crm" (known: erp)',
    ],
  },
  {
    name: 'connection-name-padded',
    files: { 'connections.yaml': connections((c) => (c.name = 'crm ')) },
    expected: [
      'connections.yaml: connections[0].name: must not start or end with whitespace',
      'jobs.yaml: jobs[0].source: unknown connection "crm" (known: crm , erp)',
      'jobs.yaml: jobs[1].target: unknown connection "crm" (known: crm , erp)',
    ],
  },
  {
    name: 'connection-duplicate-name',
    files: { 'connections.yaml': connections((c) => (c.name = 'crm'), 1) },
    expected: [
      'connections.yaml: connections[1].name: duplicate connection name "crm" (also connections[0])',
      'jobs.yaml: jobs[0].target: unknown connection "erp" (known: crm)',
      'jobs.yaml: jobs[1].source: unknown connection "erp" (known: crm)',
    ],
  },
  {
    name: 'connection-unknown-property',
    files: { 'connections.yaml': connections((c) => (c.setting = { file: 'x' })) },
    expected: ['connections.yaml: connections[0].setting: unknown property; did you mean settings?'],
  },
  {
    name: 'connection-literal-password',
    files: { 'connections.yaml': connections((c) => (c.settings = { file: './crm.db', password: 'hunter2' })) },
    expected: [
      'connections.yaml: connections[0].settings.password: literal secret not allowed; reference an app setting in secrets.password instead',
      // sqlite takes no password: the connector says so rather than repeat the advice above.
      'connections.yaml: connections[0].settings.password: unknown setting of connector type sqlite (known: file, busyTimeoutMs, versionField, groupCommit, synchronous, cacheSizeKb, outbox)',
    ],
  },
  {
    // The connector knows connectionString is a secret, the core sees the password: one line.
    name: 'connection-postgres-password-in-url',
    files: {
      'connections.yaml': connections((c) => {
        c.type = 'postgres';
        c.settings = { host: 'db', database: 'crm', user: 'sync', connectionString: 'postgres://sync:hunter2@db/crm' };
      }),
    },
    expected: [
      'connections.yaml: connections[0].settings.connectionString: literal secret not allowed (the value contains a password in the URL); reference an app setting in secrets.connectionString instead',
    ],
  },
  {
    // An empty user name used to pass, and the URL was printed and stored.
    name: 'connection-odata-password-in-url-without-user',
    files: {
      'connections.yaml': connections((c) => {
        c.type = 'odata';
        c.settings = { serviceUrl: 'https://:hunter2@crm.example.com/odata/' };
      }),
    },
    expected: [
      'connections.yaml: connections[0].settings.serviceUrl: literal secret not allowed (the value contains a password in the URL); reference an app setting in secrets.serviceUrl instead',
    ],
  },
  {
    // A token as the only user info, and percent-encoded credentials, passed and were printed and stored.
    name: 'connection-odata-token-as-url-user-info',
    files: {
      'connections.yaml': connections((c) => {
        c.type = 'odata';
        c.settings = { serviceUrl: 'http://T0k3n@crm.example.com/odata/' };
      }),
    },
    expected: [
      'connections.yaml: connections[0].settings.serviceUrl: literal secret not allowed (the value contains user info in the URL); reference an app setting in secrets.serviceUrl instead',
    ],
  },
  {
    name: 'connection-dataverse-encoded-credentials-in-url',
    files: {
      'connections.yaml': connections((c) => {
        c.type = 'dataverse';
        c.settings = { url: 'https://sync%3Ahunter2@contoso.crm4.dynamics.com' };
      }),
    },
    expected: [
      'connections.yaml: connections[0].settings.url: literal secret not allowed (the value contains user info in the URL); reference an app setting in secrets.url instead',
    ],
  },
  {
    name: 'connection-dataverse-password-in-url',
    files: {
      'connections.yaml': connections((c) => {
        c.type = 'dataverse';
        c.settings = { url: 'https://sync:hunter2@contoso.crm4.dynamics.com' };
      }),
    },
    expected: [
      'connections.yaml: connections[0].settings.url: literal secret not allowed (the value contains a password in the URL); reference an app setting in secrets.url instead',
    ],
  },
  {
    name: 'connection-businesscentral-empty-password-in-url',
    files: {
      'connections.yaml': connections((c) => {
        c.type = 'businesscentral';
        c.settings = { serviceUrl: 'https://sync:@bc.example.com/api/v2.0/', company: 'CRONUS' };
      }),
    },
    expected: [
      'connections.yaml: connections[0].settings.serviceUrl: literal secret not allowed (the value contains a password in the URL); reference an app setting in secrets.serviceUrl instead',
    ],
  },
  {
    name: 'connection-odata-literal-client-secret',
    files: {
      'connections.yaml': connections((c) => {
        c.type = 'odata';
        c.settings = { serviceUrl: 'https://crm.example.com/odata/', clientSecret: 'hunter2' };
      }),
    },
    expected: ['connections.yaml: connections[0].settings.clientSecret: literal secret not allowed; reference an app setting in secrets.clientSecret instead'],
  },
  {
    name: 'connection-account-key-in-string',
    files: { 'connections.yaml': connections((c) => (c.settings = { file: './crm.db', note: 'DefaultEndpointsProtocol=https;AccountName=a;AccountKey=abc123==' })) },
    expected: [
      'connections.yaml: connections[0].settings.note: literal secret not allowed (the value contains AccountKey=); reference an app setting in secrets.note instead',
      'connections.yaml: connections[0].settings.note: unknown setting of connector type sqlite (known: file, busyTimeoutMs, versionField, groupCommit, synchronous, cacheSizeKb, outbox)',
    ],
  },
  {
    name: 'connection-secret-is-a-value',
    files: { 'connections.yaml': connections((c) => (c.secrets = { password: 'hunter2!' })) },
    expected: [
      'connections.yaml: connections[0].secrets.password: must be the name of an app setting / environment variable (letters, digits and _, not starting with a digit), not the secret itself',
    ],
  },
  {
    name: 'connection-max-concurrency-zero',
    files: { 'connections.yaml': connections((c) => (c.maxConcurrency = 0)) },
    expected: ['connections.yaml: connections[0].maxConcurrency: must be greater than 0'],
  },
  {
    name: 'connection-unknown-type',
    files: { 'connections.yaml': connections((c) => (c.type = 'mssql')) },
    expected: ['connections.yaml: connections[0].type: unknown connection type "mssql" (known: businesscentral, dataverse, mysql, odata, postgres, sqlite)'],
  },
  {
    name: 'connection-sqlite-without-file',
    files: { 'connections.yaml': connections((c) => (c.settings = {})) },
    expected: ['connections.yaml: connections[0].settings.file: is required: the SQLite database file (relative to the configuration folder)'],
  },
  {
    name: 'connection-sqlite-setting-typo',
    files: { 'connections.yaml': connections((c) => (c.settings = { fiel: './crm.db' })) },
    expected: [
      'connections.yaml: connections[0].settings.file: is required: the SQLite database file (relative to the configuration folder)',
      'connections.yaml: connections[0].settings.fiel: unknown setting of connector type sqlite (known: file, busyTimeoutMs, versionField, groupCommit, synchronous, cacheSizeKb, outbox)',
    ],
  },
  {
    name: 'connection-sqlite-busy-timeout-text',
    files: { 'connections.yaml': connections((c) => (c.settings = { file: './crm.db', busyTimeoutMs: 'soon' })) },
    expected: ['connections.yaml: connections[0].settings.busyTimeoutMs: must be an integer from 0 to 600000'],
  },
  {
    // An outbox block with bad values; and the job reading it still has a datetime watermark.
    name: 'connection-outbox-settings',
    files: {
      'connections.yaml': connections((c) => (c.settings = { file: './crm.db', outbox: { table: 'out box', leaseSeconds: 1, columns: { payload: 'body text', kind: 'type' } } })),
    },
    expected: [
      'connections.yaml: connections[0].settings.outbox.table: must be a table name (name or schema.name, plain SQL identifiers)',
      'connections.yaml: connections[0].settings.outbox.leaseSeconds: must be an integer from 10 to 86400',
      'connections.yaml: connections[0].settings.outbox.columns.payload: must be a plain SQL identifier (letters, digits, _ and $, not starting with a digit)',
      'connections.yaml: connections[0].settings.outbox.columns.kind: unknown column of the outbox (known: id, aggregateKey, action, payload, createdAt, type, claimedAt, processedAt, deadReason)',
      'jobs.yaml: jobs[0].watermark.type: must be number when reading the outbox of connection "crm" (the outbox id is the change tracker), got "datetime"',
    ],
  },
];
