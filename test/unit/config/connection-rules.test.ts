import { ConfigValidationError } from '../../../src/platform/config-issue';
import { findLiteralSecrets, isSecretKey } from '../../../src/platform/literal-secrets';
import { validateConfig, type ConnectionTypeValidator } from '../../../src/config/validate-config';
import { issueLines, validRawConfig } from './valid-config';

const SECRET = 'Tr0ub4dor&3-do-not-leak';

/** Issue lines for a config whose first connection gets `patch`. */
function connectionIssues(patch: Record<string, unknown>, connectionTypes?: Record<string, ConnectionTypeValidator>): string[] {
  const raw = validRawConfig();
  Object.assign(raw.connections[0], patch);
  return issueLines(() => validateConfig(raw, { connectionTypes }));
}

describe('secrets in connections', () => {
  it('accepts secrets only as references to app settings', () => {
    const raw = validRawConfig();
    raw.connections[0] = { name: 'crm', type: 'postgres', settings: { host: 'db', user: 'sync' }, secrets: { password: 'CRM_PASSWORD' } };
    expect(validateConfig(raw).connections[0].secrets).toEqual({ password: 'CRM_PASSWORD' });
  });

  it('rejects a literal secret with the path and the fix', () => {
    expect(connectionIssues({ settings: { file: './crm.db', password: SECRET } })).toEqual([
      'connections: connections[0].settings.password: literal secret not allowed; reference an app setting in secrets.password instead',
    ]);
  });

  it('finds secret-looking keys in any spelling and nesting, but not their URLs or names', () => {
    const settings = {
      clientSecret: SECRET,
      api_key: SECRET,
      auth: { accessToken: SECRET, tokenUrl: 'https://login/token', secretName: 'crm' },
      accounts: [{ AccountKey: SECRET }],
      pwd: SECRET,
      passwordSetting: 'CRM_PASSWORD',
      password: '',
      token: null,
    };
    expect(findLiteralSecrets(settings)).toEqual([
      { path: 'settings.clientSecret', message: 'literal secret not allowed; reference an app setting in secrets.clientSecret instead' },
      { path: 'settings.api_key', message: 'literal secret not allowed; reference an app setting in secrets.api_key instead' },
      { path: 'settings.auth.accessToken', message: 'literal secret not allowed; reference an app setting in secrets["auth.accessToken"] instead' },
      { path: 'settings.accounts[0].AccountKey', message: 'literal secret not allowed; reference an app setting in secrets["accounts[0].AccountKey"] instead' },
      { path: 'settings.pwd', message: 'literal secret not allowed; reference an app setting in secrets.pwd instead' },
    ]);
    expect(isSecretKey('sharedAccessKey')).toBe(true);
    expect(isSecretKey('database')).toBe(false);
  });

  it('finds secrets inside connection strings and URLs, whatever the key', () => {
    const settings = {
      connectionString: `Server=db;User Id=sync;Password=${SECRET};`,
      storage: `DefaultEndpointsProtocol=https;AccountName=a;AccountKey=${SECRET}`,
      bus: `Endpoint=sb://x/;SharedAccessKeyName=root;SharedAccessKey=${SECRET}`,
      url: `postgres://sync:${SECRET}@db:5432/crm`,
      blob: `https://a.blob.core.windows.net/c?sv=2022&sig=${SECRET}`,
      plain: 'Server=db;User Id=sync;Password=;',
    };
    expect(findLiteralSecrets(settings).map((p) => `${p.path}: ${p.message}`)).toEqual([
      'settings.connectionString: literal secret not allowed (the value contains Password=); reference an app setting in secrets.connectionString instead',
      'settings.storage: literal secret not allowed (the value contains AccountKey=); reference an app setting in secrets.storage instead',
      'settings.bus: literal secret not allowed (the value contains SharedAccessKey=); reference an app setting in secrets.bus instead',
      'settings.url: literal secret not allowed (the value contains a password in the URL); reference an app setting in secrets.url instead',
      'settings.blob: literal secret not allowed (the value contains a SAS signature (sig=)); reference an app setting in secrets.blob instead',
    ]);
  });

  it('never puts the secret value into the error, even when the entry has other errors', () => {
    const raw = validRawConfig();
    raw.connections[0] = { name: 'crm', settings: { password: SECRET, connectionString: `Password=${SECRET}` }, secrets: { token: SECRET } };
    let caught: unknown;
    try {
      validateConfig(raw);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigValidationError);
    const error = caught as ConfigValidationError;
    expect(error.message.split('\n')).toEqual([
      'connections: connections[0].type: required',
      'connections: connections[0].secrets.token: must be the name of an app setting / environment variable (letters, digits and _, not starting with a digit), not the secret itself',
      'connections: connections[0].settings.password: literal secret not allowed; reference an app setting in secrets.password instead',
      'connections: connections[0].settings.connectionString: literal secret not allowed (the value contains Password=); reference an app setting in secrets.connectionString instead',
    ]);
    expect(JSON.stringify({ message: error.message, issues: error.issues, stack: error.stack })).not.toContain('Tr0ub4dor');
  });

  it('rejects a setting given both literally and as a secret reference', () => {
    expect(connectionIssues({ settings: { file: './crm.db', user: 'sync' }, secrets: { user: 'CRM_USER' } })).toEqual([
      'connections: connections[0].secrets.user: settings.user is also set; a setting is either a literal in settings or a reference in secrets',
    ]);
  });
});

describe('connection types', () => {
  const sqlite: ConnectionTypeValidator = (settings) =>
    typeof settings.file === 'string' ? [] : [{ path: 'settings.file', message: 'required: path of the database file' }];

  it('accepts any type when no connection types are given', () => {
    expect(connectionIssues({ type: 'anything' })).toEqual([]);
  });

  it('requires a known type and runs its validator with settings and secret references', () => {
    const seen: unknown[] = [];
    const postgres: ConnectionTypeValidator = (settings, secrets) => {
      seen.push({ settings, secrets });
      return secrets.password ? [] : [{ path: 'secrets.password', message: 'required' }];
    };
    const raw = validRawConfig();
    raw.connections[0] = { name: 'crm', type: 'sqlit', settings: {} };
    raw.connections[1] = { name: 'erp', type: 'postgres', settings: { host: 'db' } };
    raw.connections.push({ name: 'files', type: 'sqlite', settings: {} });
    raw.jobs = [];
    expect(issueLines(() => validateConfig(raw, { connectionTypes: { sqlite, postgres } }))).toEqual([
      'connections: connections[0].type: unknown connection type "sqlit" (known: postgres, sqlite)',
      'connections: connections[1].secrets.password: required',
      'connections: connections[2].settings.file: required: path of the database file',
    ]);
    expect(seen).toEqual([{ settings: { host: 'db' }, secrets: {} }]);
  });
});
