import { validateMysqlSettings, validatePostgresSettings, validateSqliteSettings } from '../../../../connectors/sql/sql-settings';

describe('sqlite settings', () => {
  it('accepts a file and optional settings', () => {
    expect(validateSqliteSettings({ file: 'data/erp.db', busyTimeoutMs: 1000, versionField: 'modified_at', groupCommit: true, synchronous: 'FULL', cacheSizeKb: 8192 }, {})).toEqual([]);
    expect(validateSqliteSettings({ file: 'data/erp.db', groupCommit: 'yes' }, {})).toEqual([{ path: 'settings.groupCommit', message: 'must be true or false' }]);
    expect(validateSqliteSettings({ file: 'data/erp.db', synchronous: 'full' }, {})).toEqual([
      { path: 'settings.synchronous', message: 'must be one of NORMAL, FULL, got "full"' },
    ]);
    expect(validateSqliteSettings({ file: 'data/erp.db', cacheSizeKb: 16 }, {})).toEqual([{ path: 'settings.cacheSizeKb', message: 'must be an integer from 64 to 1048576' }]);
  });

  it('names every problem by path', () => {
    expect(validateSqliteSettings({ busyTimeoutMs: -1, versionField: 'a b', password: 'x', fil: 'a.db' }, { password: 'DB_PW' })).toEqual([
      { path: 'settings.file', message: 'is required: the SQLite database file (relative to the configuration folder)' },
      { path: 'settings.busyTimeoutMs', message: 'must be an integer from 0 to 600000' },
      { path: 'settings.versionField', message: 'must be a plain SQL identifier (letters, digits, _ and $, not starting with a digit)' },
      { path: 'settings.password', message: 'unknown setting of connector type sqlite (known: file, busyTimeoutMs, versionField, groupCommit, synchronous, cacheSizeKb, outbox)' },
      { path: 'settings.fil', message: 'unknown setting of connector type sqlite (known: file, busyTimeoutMs, versionField, groupCommit, synchronous, cacheSizeKb, outbox)' },
      { path: 'secrets.password', message: 'unknown secret of connector type sqlite (known: none)' },
    ]);
    expect(validateSqliteSettings({ file: '' }, {})).toEqual([{ path: 'settings.file', message: 'must be a non-empty string' }]);
  });
});

describe('postgres settings', () => {
  it('accepts host/database/user with a password secret, or a connection string secret alone', () => {
    expect(validatePostgresSettings({ host: 'db', port: 5432, database: 'erp', user: 'sync', schema: 'sales', ssl: true }, { password: 'ERP_PW' })).toEqual([]);
    expect(validatePostgresSettings({ host: 'db', database: 'erp', user: 'sync' }, {})).toEqual([]);
    expect(validatePostgresSettings({ schema: 'sales' }, { connectionString: 'ERP_DB_URL' })).toEqual([]);
  });

  it('names every problem by path', () => {
    expect(validatePostgresSettings({ port: 70000, ssl: 'yes', connectionString: 'postgres://x' }, { password: 'MY PW', token: 'T' })).toEqual([
      { path: 'settings.host', message: 'is required (or name a connection string in secrets.connectionString)' },
      { path: 'settings.database', message: 'is required (or name a connection string in secrets.connectionString)' },
      { path: 'settings.user', message: 'is required (or name a connection string in secrets.connectionString)' },
      { path: 'settings.port', message: 'must be an integer from 1 to 65535' },
      { path: 'settings.ssl', message: 'must be true or false' },
      { path: 'settings.connectionString', message: 'literal secret not allowed; reference an app setting in secrets.connectionString instead' },
      { path: 'secrets.password', message: 'must name an app setting (env var), without spaces' },
      { path: 'secrets.token', message: 'unknown secret of connector type postgres (known: password, connectionString)' },
    ]);
    expect(validatePostgresSettings({ host: 'db', port: 5433 }, { connectionString: 'URL' })).toEqual([
      { path: 'settings.host', message: 'must not be set together with secrets.connectionString' },
      { path: 'settings.port', message: 'must not be set together with secrets.connectionString' },
    ]);
  });
});

describe('mysql settings', () => {
  it('accepts host/database/user with a password secret, or a connection string secret alone', () => {
    expect(validateMysqlSettings({ host: 'shop.mysql.database.azure.com', port: 3306, database: 'shop', user: 'sync', ssl: true, versionField: 'updated_at' }, { password: 'SHOP_PW' })).toEqual([]);
    expect(validateMysqlSettings({}, { connectionString: 'SHOP_DB_URL' })).toEqual([]);
  });

  it('names every problem by path, with the messages the other database connectors give', () => {
    expect(validateMysqlSettings({ port: 0, ssl: 'on', schema: 'x', versionField: 'bad name', password: 'pw' }, { token: 'T' })).toEqual([
      { path: 'settings.host', message: 'is required (or name a connection string in secrets.connectionString)' },
      { path: 'settings.database', message: 'is required (or name a connection string in secrets.connectionString)' },
      { path: 'settings.user', message: 'is required (or name a connection string in secrets.connectionString)' },
      { path: 'settings.port', message: 'must be an integer from 1 to 65535' },
      { path: 'settings.ssl', message: 'must be true or false' },
      // A MySQL schema is a database: settings.database names it.
      { path: 'settings.schema', message: 'unknown setting of connector type mysql (known: host, port, database, user, ssl, versionField, outbox)' },
      { path: 'settings.versionField', message: 'must be a plain SQL identifier (letters, digits, _ and $, not starting with a digit)' },
      { path: 'settings.password', message: 'literal secret not allowed; reference an app setting in secrets.password instead' },
      { path: 'secrets.token', message: 'unknown secret of connector type mysql (known: password, connectionString)' },
    ]);
    expect(validateMysqlSettings({ database: 'shop', port: 3307 }, { connectionString: 'URL' })).toEqual([
      { path: 'settings.database', message: 'must not be set together with secrets.connectionString' },
      { path: 'settings.port', message: 'must not be set together with secrets.connectionString' },
    ]);
  });
});
