import { defaultConnectorRegistry } from '../../../connectors/default-registry';
import { findLiteralSecrets, secretSettingProblem } from '../../../src/platform/literal-secrets';
import { validateConfig } from '../../../src/config/validate-config';
import { issueLines, validRawConfig } from '../config/valid-config';

/**
 * A literal secret in a connection's settings is caught twice — by the core's literal-secret
 * check and by the connector that reads that setting as a secret — but reported once, in the
 * core's words, with the property path.
 */

/** Issue lines for a config whose first connection is `connection` (named crm), with the real connectors' checks. */
function issuesOf(connection: Record<string, unknown>): string[] {
  const raw = validRawConfig();
  raw.connections[0] = { name: 'crm', ...connection };
  return issueLines(() => validateConfig(raw, { connectionTypes: defaultConnectorRegistry().connectionTypes() }));
}

describe('secretSettingProblem', () => {
  it('is the core report itself when the core flags the setting', () => {
    for (const [key, value] of [
      ['password', 'hunter2'],
      ['clientSecret', 'hunter2'],
      ['connectionString', 'Server=db;Password=hunter2'],
    ] as const) {
      expect([secretSettingProblem(key, value)]).toEqual(findLiteralSecrets({ [key]: value }));
    }
    expect(secretSettingProblem('connectionString', 'postgres://sync:hunter2@db/crm')).toEqual({
      path: 'settings.connectionString',
      message: 'literal secret not allowed (the value contains a password in the URL); reference an app setting in secrets.connectionString instead',
    });
  });

  it('uses the same words when only the connector knows the setting is a secret', () => {
    expect(findLiteralSecrets({ connectionString: 'postgres://db/crm', certificate: 'PEM' })).toEqual([]);
    expect(secretSettingProblem('connectionString', 'postgres://db/crm')).toEqual({
      path: 'settings.connectionString',
      message: 'literal secret not allowed; reference an app setting in secrets.connectionString instead',
    });
    expect(secretSettingProblem('certificate', { pem: 'x' })).toEqual({
      path: 'settings.certificate',
      message: 'literal secret not allowed; reference an app setting in secrets.certificate instead',
    });
  });
});

describe('a literal secret through config validation with the connectors', () => {
  it('is reported once for SQL connections; sqlite, which takes no password, also calls it an unknown setting', () => {
    expect(issuesOf({ type: 'sqlite', settings: { file: './crm.db', password: 'hunter2' } })).toEqual([
      'connections: connections[0].settings.password: literal secret not allowed; reference an app setting in secrets.password instead',
      'connections: connections[0].settings.password: unknown setting of connector type sqlite (known: file, busyTimeoutMs, versionField, groupCommit, synchronous, cacheSizeKb, outbox)',
    ]);
    expect(issuesOf({ type: 'postgres', settings: { host: 'db', database: 'crm', user: 'sync', password: 'hunter2' } })).toEqual([
      'connections: connections[0].settings.password: literal secret not allowed; reference an app setting in secrets.password instead',
    ]);
    expect(issuesOf({ type: 'postgres', settings: { host: 'db', database: 'crm', user: 'sync', connectionString: 'Server=db;Password=hunter2' } })).toEqual([
      'connections: connections[0].settings.connectionString: literal secret not allowed (the value contains Password=); reference an app setting in secrets.connectionString instead',
    ]);
  });

  it('is reported once for OData-based connections', () => {
    expect(issuesOf({ type: 'odata', settings: { serviceUrl: 'https://crm.example.com/odata/', clientSecret: 'hunter2' } })).toEqual([
      'connections: connections[0].settings.clientSecret: literal secret not allowed; reference an app setting in secrets.clientSecret instead',
    ]);
    expect(issuesOf({ type: 'dataverse', settings: { url: 'https://crm.example.com/', clientSecret: 'hunter2' } })).toEqual([
      'connections: connections[0].settings.clientSecret: literal secret not allowed; reference an app setting in secrets.clientSecret instead',
    ]);
  });

  it('is reported by the connector alone when only the connector knows it is a secret', () => {
    expect(issuesOf({ type: 'dataverse', settings: { url: 'https://crm.example.com/', certificate: 'PEM' } })).toEqual([
      'connections: connections[0].settings.certificate: literal secret not allowed; reference an app setting in secrets.certificate instead',
    ]);
  });

  it('keeps a different problem at the same path', () => {
    expect(issuesOf({ type: 'sqlite', settings: { file: './crm.db', note: 'AccountName=a;AccountKey=abc' } })).toEqual([
      'connections: connections[0].settings.note: literal secret not allowed (the value contains AccountKey=); reference an app setting in secrets.note instead',
      'connections: connections[0].settings.note: unknown setting of connector type sqlite (known: file, busyTimeoutMs, versionField, groupCommit, synchronous, cacheSizeKb, outbox)',
    ]);
  });
});
