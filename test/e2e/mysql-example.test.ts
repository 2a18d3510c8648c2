import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createConnection, type Connection } from 'mysql2/promise';
import { runCli } from '../../src/cli/main';
import { describeEngine, MYSQL_URL } from '../integration/connectors/sql/sql-test-engines';

/**
 * The README's MariaDB / MySQL example (`examples/mysql`) end to end on the real server: its
 * tables (`schema.sql`) in two throw-away databases, `highwater start --once` on the example's
 * own configuration, the ERP compared with the shop; then changes (an update stamped by
 * `ON UPDATE CURRENT_TIMESTAMP`, a cancellation, a new payment) and a second run.
 */
const EXAMPLE = path.join(__dirname, '../../examples/mysql');
const ENV = ['SHOP_DB_URL', 'ERP_DB_URL', 'HIGHWATER_LOCAL_TABLES', 'HIGHWATER_DATA_DIR', 'AzureWebJobsStorage'];
const BIG_TOTAL = '12345678901234567890123456789012345.123456789012345678901234567891';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeEngine('mysql')('the MariaDB/MySQL example (examples/mysql) on the real server', () => {
  const saved = Object.fromEntries(ENV.map((name) => [name, process.env[name]]));
  const suffix = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const names = { shop: `hw_shop_${suffix}`, erp: `hw_erp_${suffix}` };
  let admin: Connection;
  let dir: string;
  let out: string[];

  const urlOf = (database: string) => {
    const url = new URL(String(MYSQL_URL));
    url.pathname = `/${database}`;
    return url.toString();
  };
  const select = async (sql: string) => (await admin.query(sql))[0] as Array<Record<string, unknown>>;
  const run = async () => {
    out = [];
    const code = await runCli(['start', '--once', '--port', '0', '--stall-timeout', '20', '--config', EXAMPLE]);
    return code;
  };
  /**
   * Runs `start --once` until `done` holds, at most 5 times: the settled horizon waits for every
   * open transaction and running statement on the server, and this server may be shared.
   */
  const runUntil = async (done: () => Promise<boolean>) => {
    for (let attempt = 1; attempt <= 5; attempt++) {
      expect(await run()).toBe(0);
      if (await done()) return;
      await sleep(1000);
    }
  };

  beforeAll(async () => {
    admin = await createConnection({ uri: String(MYSQL_URL), multipleStatements: true, supportBigNumbers: true, bigNumberStrings: true, dateStrings: true, jsonStrings: true });
    const [shopSql, erpSql] = fs.readFileSync(path.join(EXAMPLE, 'schema.sql'), 'utf8').split('-- Target database');
    await admin.query(`CREATE DATABASE ${names.shop} CHARACTER SET utf8mb4; USE ${names.shop}; ${shopSql}`);
    await admin.query(`CREATE DATABASE ${names.erp} CHARACTER SET utf8mb4; USE ${names.erp}; ${erpSql.slice(erpSql.indexOf('\n'))}`);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-mysql-example-'));
    process.env.SHOP_DB_URL = urlOf(names.shop);
    process.env.ERP_DB_URL = urlOf(names.erp);
    process.env.HIGHWATER_LOCAL_TABLES = 'sqlite';
    process.env.HIGHWATER_DATA_DIR = path.join(dir, 'data');
    delete process.env.AzureWebJobsStorage;
  });

  afterAll(async () => {
    for (const name of ENV) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    await admin?.query(`DROP DATABASE IF EXISTS ${names.shop}; DROP DATABASE IF EXISTS ${names.erp}`);
    await admin?.end();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void out.push(args.map(String).join(' ')));
    jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    jest.spyOn(console, 'info').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it('passes highwater check against its tables (columns, unique target keys, watermark types)', async () => {
    out = [];
    expect(await runCli(['check', '--config', EXAMPLE])).toBe(0);
  });

  it('syncs orders (exact values, soft deletes) and payments, then the changes of a second run', async () => {
    await admin.query(
      `INSERT INTO ${names.shop}.orders (email, total, attachment, details, cancelled) VALUES ` +
        `('anna@example.com', ?, X'00ff10', '{"lines": [{"sku": "Ä-1", "qty": 2}], "note": "😀"}', 0), ` +
        `('  bob@example.com ', 19.99, NULL, NULL, 0), ('carl@example.com', 5, NULL, NULL, 1)`,
      [BIG_TOTAL],
    );
    await admin.query(`INSERT INTO ${names.shop}.payments (order_id, amount) VALUES (1, 10.5), (2, 19.99)`);
    await sleep(2100); // past the settled horizon: the clock minus settleSeconds (1), cut to the second
    await runUntil(async () => (await select(`SELECT count(*) AS n FROM ${names.erp}.payments`))[0].n === '2');

    expect(await select(`SELECT shop_order_id AS id, customer_email AS email, CAST(total AS CHAR) AS total, hex(attachment) AS bin, details FROM ${names.erp}.sales_orders ORDER BY 1`)).toEqual([
      // A JSON column travels as its JSON value (docs/connectors.md "Exact values"): MariaDB keeps
      // JSON as text, so the document arrives equal in value, written without the source's spaces.
      { id: '1', email: 'anna@example.com', total: BIG_TOTAL, bin: '00FF10', details: '{"lines":[{"sku":"Ä-1","qty":2}],"note":"😀"}' },
      { id: '2', email: 'bob@example.com', total: '19.990000000000000000000000000000', bin: null, details: null },
    ]);
    expect(await select(`SELECT shop_payment_id AS id, shop_order_id AS o, CAST(amount AS CHAR) AS amount FROM ${names.erp}.payments ORDER BY 1`)).toEqual([
      { id: '1', o: '1', amount: '10.5000' },
      { id: '2', o: '2', amount: '19.9900' },
    ]);
    const [shopStamp] = await select(`SELECT updated_at FROM ${names.shop}.orders WHERE id = 1`);
    const [erpStamp] = await select(`SELECT source_modified_at FROM ${names.erp}.sales_orders WHERE shop_order_id = 1`);
    expect(erpStamp.source_modified_at).toBe(shopStamp.updated_at);

    // An update (stamped by ON UPDATE CURRENT_TIMESTAMP), a cancellation, a new payment.
    await admin.query(`UPDATE ${names.shop}.orders SET email = 'anna@example.org' WHERE id = 1`);
    await admin.query(`UPDATE ${names.shop}.orders SET cancelled = 1 WHERE id = 2`);
    await admin.query(`DELETE FROM ${names.erp}.payments WHERE shop_order_id = 2`);
    await admin.query(`INSERT INTO ${names.shop}.payments (order_id, amount) VALUES (1, 0.0001)`);
    await sleep(2100);
    await runUntil(async () => (await select(`SELECT count(*) AS n FROM ${names.erp}.sales_orders`))[0].n === '1');
    expect(await select(`SELECT shop_order_id AS id, customer_email AS email FROM ${names.erp}.sales_orders ORDER BY 1`)).toEqual([{ id: '1', email: 'anna@example.org' }]);
    expect(await select(`SELECT shop_payment_id AS id, CAST(amount AS CHAR) AS amount FROM ${names.erp}.payments ORDER BY 1`)).toEqual([
      { id: '1', amount: '10.5000' },
      { id: '3', amount: '0.0001' },
    ]);
  }, 120_000);
});
