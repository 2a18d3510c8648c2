import { createConnection, type Connection as MysqlConnection } from 'mysql2/promise';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage, type JsonValue } from '../../../../src/model/queue-message';
import { MysqlDatabase } from '../../../../connectors/sql/mysql-dialect';
import { describeEngine, MYSQL_URL, openEngine, type SqlTestEngine } from './sql-test-engines';

/**
 * What is MariaDB / MySQL's own in the target, on the real server: its errors in the taxonomy
 * (deadlock, lock wait, duplicate key, too long, unreachable server, bad login), and the values
 * it would change silently refused by name (DECIMAL scale, BIGINT UNSIGNED range, DATETIME(n)
 * fraction), offsets written as UTC.
 */
const job = { name: 'items' } as Job;
const message = (fields: Record<string, JsonValue>) =>
  createQueueMessage({ jobName: 'items', action: JobActionType.NewUpdate, sourceKey: String(fields.id), targetKey: { id: fields.id ?? null }, changeTracker: '1', fields });
const mapping = (table: string): Mapping => ({ name: 'items', source: { entity: 's', key: ['id'] }, target: { entity: table, key: ['id'] }, fields: [] });

describeEngine('mysql')('MySQL target on the real server', () => {
  let db: SqlTestEngine;
  let url: URL;
  let tables = 0;
  beforeAll(async () => {
    db = await openEngine('mysql');
    url = new URL(String(MYSQL_URL));
    url.pathname = `/${String((await db.select('SELECT DATABASE() AS d'))[0].d)}`;
  });
  afterAll(() => db?.close());

  const table = async (columns: string) => {
    const name = `items_${++tables}`;
    await db.exec(`CREATE TABLE ${name} (${columns})`);
    return name;
  };
  const database = (connectionString = url.toString()) => new MysqlDatabase({ connectionString, connectionName: 'shop', redact: (t) => t });

  it('refuses values the server would round or cut, naming the column; writes offsets as UTC', async () => {
    const t = await table('id int PRIMARY KEY, amount decimal(65,30), big bigint unsigned, ts datetime(3)');
    const outcomes = await db.target().applyBatch?.({
      job, mapping: mapping(t), action: JobActionType.NewUpdate,
      messages: [
        message({ id: 1, amount: '1.0000000000000000000000000000001' }),
        message({ id: 2, big: '18446744073709551616' }),
        message({ id: 3, big: '-1' }),
        message({ id: 4, ts: '2026-01-02T03:04:05.1234Z' }),
        message({ id: 5, amount: '12345678901234567890123456789012345.123456789012345678901234567891', big: '18446744073709551615', ts: '2026-01-02 05:04:05.123+02:00' }),
      ],
    });
    expect(outcomes?.map((o) => (o.status === 'failed' ? `${(o.error as Error).name}: ${(o.error as Error).message}` : o.status))).toEqual([
      expect.stringMatching(/^PermanentError: column "amount" of "items_\d+": 1\.0+1 cannot be stored exactly \(more than 30 fraction digits: decimal\(65,30\) would round it\)$/),
      expect.stringMatching(/^PermanentError: column "big" of .*\(beyond the range of bigint\(20\) unsigned\)$/),
      expect.stringMatching(/^PermanentError: column "big" of .*\(beyond the range of bigint\(20\) unsigned\)$/),
      expect.stringMatching(/^PermanentError: column "ts" of .*\(more than 3 fraction digits of a second: datetime\(3\) would cut or round it\)$/),
      'applied',
    ]);
    expect(await db.select(`SELECT CAST(amount AS CHAR) AS amount, CAST(big AS CHAR) AS big, ts FROM ${t}`)).toEqual([
      { amount: '12345678901234567890123456789012345.123456789012345678901234567891', big: '18446744073709551615', ts: '2026-01-02 03:04:05.123' },
    ]);
  });

  it('classifies a duplicate of another unique column and a value too long as permanent, each failing alone', async () => {
    const t = await table('id int PRIMARY KEY, email varchar(10) UNIQUE');
    await db.exec(`INSERT INTO ${t} VALUES (1, 'a@x')`);
    const outcomes = await db.target().applyBatch?.({
      job, mapping: mapping(t), action: JobActionType.NewUpdate,
      messages: [message({ id: 2, email: 'a@x' }), message({ id: 3, email: 'far-too-long@x' }), message({ id: 4, email: 'b@x' })],
    });
    expect(outcomes?.map((o) => (o.status === 'failed' ? (o.error as Error).message.replace(/: [^:]*$/, '') : o.status))).toEqual([
      expect.stringMatching(/a unique value is taken by another record \(1062\)$/),
      expect.stringMatching(/a value is too long for its column \(1406\)$/),
      'applied',
    ]);
  });

  it('turns a deadlock into a TransientError (InnoDB rolled the victim back) and a lock wait timeout too', async () => {
    const t = await table('id int PRIMARY KEY, v int');
    await db.exec(`INSERT INTO ${t} VALUES (1, 0), (2, 0)`);
    const a = database();
    const b = database();
    let firstLocked!: () => void;
    const bothLocked = new Promise<void>((resolve) => (firstLocked = resolve));
    let locks = 0;
    const lockInOrder = (mysql: MysqlDatabase, first: number, second: number) =>
      mysql.transaction(async (tx) => {
        await tx.query(`UPDATE ${t} SET v = v + 1 WHERE id = ?`, [first], 'first');
        if (++locks === 2) firstLocked();
        await bothLocked;
        await tx.query(`UPDATE ${t} SET v = v + 1 WHERE id = ?`, [second], 'second');
      }, 'swap');
    const results = await Promise.allSettled([lockInOrder(a, 1, 2), lockInOrder(b, 2, 1)]);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as Error);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({ name: 'TransientError', details: { code: '1213' } });
    expect(rejected[0].message).toContain('mysql connection "shop": second: deadlock (1213)');

    const holder: MysqlConnection = await createConnection({ uri: url.toString() });
    try {
      await holder.query('START TRANSACTION');
      await holder.query(`SELECT * FROM ${t} WHERE id = 1 FOR UPDATE`);
      await expect(a.transaction(async (tx) => {
        await tx.query('SET SESSION innodb_lock_wait_timeout = 1', [], 'short lock wait');
        await tx.query(`UPDATE ${t} SET v = 9 WHERE id = 1`, [], 'update');
      }, 'wait')).rejects.toMatchObject({ name: 'TransientError', details: { code: '1205' } });
    } finally {
      await holder.end();
      await a.close();
      await b.close();
    }
  }, 20_000);

  it('applies a group that InnoDB chose as a deadlock victim by trying it again (the whole transaction was rolled back)', async () => {
    const t = await table('id int PRIMARY KEY, label varchar(20)');
    const ballast = await table('id int PRIMARY KEY, v int');
    await db.exec(`INSERT INTO ${t} VALUES (1, 'old'), (2, 'old')`);
    await db.exec(`INSERT INTO ${ballast} WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) SELECT i, 0 FROM n`);
    // MariaDB counts deadlocks in a status variable (MySQL only in a metric that is off by default).
    const deadlocks = async () => Number((await db.select(`SHOW GLOBAL STATUS LIKE 'Innodb_deadlocks'`))[0].Value);
    const before = await deadlocks();
    const other: MysqlConnection = await createConnection({ uri: url.toString() });
    try {
      // The other transaction is the heavier one (200 rows changed): InnoDB rolls the writer back.
      await other.query('START TRANSACTION');
      await other.query(`UPDATE ${ballast} SET v = v + 1`);
      await other.query(`SELECT * FROM ${t} WHERE id = 2 FOR UPDATE`);
      const target = db.target();
      const applying = target.applyBatch?.({ job, mapping: mapping(t), action: JobActionType.NewUpdate, messages: [message({ id: 1, label: 'new' }), message({ id: 2, label: 'new' })] });
      // The writer holds key 1 and waits for key 2; then the other session asks for key 1.
      for (let i = 0; i < 200; i++) {
        const waiting = await db.select(`SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE '%FOR UPDATE%' AND INFO LIKE '%"${t}"%' AND ID <> CONNECTION_ID()`);
        if (waiting.length > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await other.query(`SELECT * FROM ${t} WHERE id = 1 FOR UPDATE`);
      await other.query('COMMIT');
      expect(await applying).toEqual([{ status: 'applied' }, { status: 'applied' }]);
    } finally {
      await other.end();
    }
    expect(await deadlocks()).toBeGreaterThan(before);
    expect(await db.select(`SELECT id, label FROM ${t} ORDER BY id`)).toEqual([{ id: 1, label: 'new' }, { id: 2, label: 'new' }]);
  }, 20_000);

  it('reports an unreachable server as transient, an unknown database and a bad login as configuration, without the password', async () => {
    const closed = database('mysql://root@127.0.0.1:1/test');
    await expect(closed.query('SELECT 1', [], 'connect')).rejects.toMatchObject({ name: 'TransientError', details: { code: 'ECONNREFUSED' } });
    await closed.close();
    const unknown = new URL(url.toString());
    unknown.pathname = '/hw_no_such_database';
    const missing = database(unknown.toString());
    await expect(missing.query('SELECT 1', [], 'connect')).rejects.toMatchObject({ name: 'ConfigError', details: { code: '1049' } });
    await missing.close();
    const login = new URL(url.toString());
    login.username = 'hw_nobody';
    login.password = 'S3cret-pw';
    const bad = new MysqlDatabase({ connectionString: login.toString(), connectionName: 'shop', redact: (text) => text.split('S3cret-pw').join('***') });
    const error = (await bad.query('SELECT 1', [], 'connect').catch((e: unknown) => e)) as Error;
    await bad.close();
    expect(error).toMatchObject({ name: 'ConfigError' });
    expect(error.message).toMatch(/^mysql connection "shop": connect: authentication failed \((1045|1698)\)$/);
    expect(JSON.stringify({ message: error.message, details: (error as { details?: unknown }).details })).not.toContain('S3cret-pw');
  });

  it('refuses a connection string that is no mysql:// URL, or that the driver refuses, as configuration, keeping the password out', async () => {
    for (const [text, message] of [
      ['Server=db;Password=S3cret-pw', 'mysql connection "shop": secrets.connectionString is not a mysql://user:password@host:port/database URL'],
      ['postgres://sync:S3cret-pw@db/shop', 'mysql connection "shop": secrets.connectionString is not a mysql://user:password@host:port/database URL'],
      ['mysql://sync:S3cret-pw@127.0.0.1/shop?ssl=bogus', `mysql connection "shop": the driver refuses the connection settings: Unknown SSL profile 'bogus'`],
    ]) {
      const bad = database(text);
      const error = (await bad.query('SELECT 1', [], 'connect').catch((e: unknown) => e)) as Error;
      await bad.close();
      expect({ name: error.name, message: error.message, cause: error.cause }).toEqual({ name: 'ConfigError', message, cause: undefined });
    }
  });
});
