import { validatePostgresSettings, validateSqliteSettings } from '../../../../connectors/sql/sql-settings';

describe('the outbox block of a SQL connection', () => {
  it('accepts a table alone, or every setting', () => {
    expect(validateSqliteSettings({ file: 'shop.db', outbox: { table: 'outbox' } }, {})).toEqual([]);
    expect(
      validatePostgresSettings(
        {
          host: 'db', database: 'shop', user: 'sync',
          outbox: {
            table: 'app.outbox',
            columns: { id: 'seq', aggregateKey: 'entity_id', action: 'op', payload: 'body', createdAt: 'at', type: 'entity', claimedAt: 'hw_claimed', processedAt: 'hw_done', deadReason: 'hw_dead' },
            leaseSeconds: 120,
            retentionDays: 14,
          },
        },
        {},
      ),
    ).toEqual([]);
  });

  it('names every problem by its path', () => {
    expect(
      validateSqliteSettings({ file: 'shop.db', outbox: { columns: { payload: 'pay load', idx: 'x' }, leaseSeconds: 5, retentionDays: 0, batch: 3 } }, {}),
    ).toEqual([
      { path: 'settings.outbox.table', message: 'is required' },
      { path: 'settings.outbox.columns.payload', message: 'must be a plain SQL identifier (letters, digits, _ and $, not starting with a digit)' },
      { path: 'settings.outbox.columns.idx', message: 'unknown column of the outbox (known: id, aggregateKey, action, payload, createdAt, type, claimedAt, processedAt, deadReason)' },
      { path: 'settings.outbox.leaseSeconds', message: 'must be an integer from 10 to 86400' },
      { path: 'settings.outbox.retentionDays', message: 'must be an integer from 1 to 3650' },
      { path: 'settings.outbox.batch', message: 'unknown setting of the outbox (known: table, columns, leaseSeconds, retentionDays)' },
    ]);
    expect(validatePostgresSettings({ host: 'db', database: 'shop', user: 'sync', outbox: { table: 'a.b.c' } }, {})).toEqual([
      { path: 'settings.outbox.table', message: 'must be a table name (name or schema.name, plain SQL identifiers)' },
    ]);
    expect(validatePostgresSettings({ host: 'db', database: 'shop', user: 'sync', outbox: 'outbox' }, {})).toEqual([{ path: 'settings.outbox', message: 'must be an object' }]);
  });
});
