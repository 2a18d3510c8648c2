import { parseCrmErpArgs, UsageError } from '../../../bench/e2e/crm-erp-scenario';

/** The crm-erp benchmark's flags: the source and target variants, and the exact usage errors. */
describe('crm-erp benchmark flags', () => {
  const saved = process.env.HIGHWATER_BENCH_MYSQL_URL;
  afterEach(() => {
    if (saved === undefined) delete process.env.HIGHWATER_BENCH_MYSQL_URL;
    else process.env.HIGHWATER_BENCH_MYSQL_URL = saved;
  });

  it('defaults to the SQLite CRM read by modified_at and the SQLite ERP', () => {
    delete process.env.HIGHWATER_BENCH_MYSQL_URL;
    const options = parseCrmErpArgs(['--scenario', 'crm-erp']);
    expect(options).toMatchObject({ source: 'sqlite', target: 'sqlite' });
    expect(options.mysqlUrl).toBeUndefined();
  });

  it('takes --source outbox and --target mysql, the server from HIGHWATER_BENCH_MYSQL_URL or the local default', () => {
    delete process.env.HIGHWATER_BENCH_MYSQL_URL;
    expect(parseCrmErpArgs(['--source', 'outbox', '--target', 'mysql'])).toMatchObject({ source: 'outbox', target: 'mysql', mysqlUrl: 'mysql://root@127.0.0.1:3306' });
    process.env.HIGHWATER_BENCH_MYSQL_URL = 'mysql://sync:secret@db.example.com:3307';
    expect(parseCrmErpArgs(['--target', 'mysql']).mysqlUrl).toBe('mysql://sync:secret@db.example.com:3307');
  });

  it.each([
    [['--source', 'postgres'], '--source must be sqlite or outbox, got "postgres"'],
    [['--target', 'mariadb'], '--target must be sqlite or mysql, got "mariadb"'],
    [['--target'], '--target needs a value'],
    [['--source', '--quick'], '--source needs a value'],
  ])('refuses %j: %s', (argv, message) => {
    expect(() => parseCrmErpArgs(argv)).toThrow(new UsageError(message));
  });

  it('refuses a HIGHWATER_BENCH_MYSQL_URL that is no mysql:// URL, only when the MySQL target is asked for', () => {
    process.env.HIGHWATER_BENCH_MYSQL_URL = 'postgres://postgres@127.0.0.1:5432/test';
    expect(() => parseCrmErpArgs(['--target', 'mysql'])).toThrow(new UsageError('HIGHWATER_BENCH_MYSQL_URL must be a mysql://user[:password]@host[:port] URL'));
    expect(parseCrmErpArgs([]).target).toBe('sqlite');
  });
});
