import fs from 'node:fs';
import Database from 'better-sqlite3';
import { createConnection, type Connection } from 'mysql2/promise';
import { ERP_SCHEMA } from './crm-erp-workload';

/**
 * The crm-erp scenario's ERP on a MariaDB/MySQL server (`--target mysql`): a fresh database per
 * run holding the ERP's tables as a MySQL shop would declare them (an `AUTO_INCREMENT` customer
 * number, `DATETIME(3)` stamps, `MEDIUMTEXT` notes, an InnoDB foreign key from contacts to
 * customers), seeded with the rows the generator put into the SQLite `erp.db` (tombstoned and
 * stale customers). After the run the tables are copied back into a fresh `erp.db`, stamps as
 * ISO 8601 UTC, so that the same checks (crm-erp-verify.ts) judge both targets; then the
 * database is dropped.
 */

/** The server (`mysql://user[:password]@host[:port]`); its database part is ignored. */
export const BENCH_MYSQL_URL_SETTING = 'HIGHWATER_BENCH_MYSQL_URL';
export const DEFAULT_BENCH_MYSQL_URL = 'mysql://root@127.0.0.1:3306';
/** The env var the host reads the password from (set from the URL; never written to the config). */
const PASSWORD_SETTING = 'HIGHWATER_BENCH_MYSQL_PASSWORD';

const MYSQL_ERP_SCHEMA = `
  CREATE TABLE customers (customer_no BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, crm_id VARCHAR(32) NOT NULL, name VARCHAR(200) NOT NULL,
    city VARCHAR(100), street VARCHAR(200), phone VARCHAR(50), notes MEDIUMTEXT, modified_at DATETIME(3), crm_version BIGINT,
    UNIQUE KEY customers_crm_id (crm_id))
    AUTO_INCREMENT = 10000;
  CREATE TABLE contacts (crm_id VARCHAR(32) NOT NULL PRIMARY KEY, customer_crm_id VARCHAR(32) NOT NULL, full_name VARCHAR(200) NOT NULL,
    email VARCHAR(200) NOT NULL, phone VARCHAR(50), notes MEDIUMTEXT,
    CONSTRAINT contacts_customer FOREIGN KEY (customer_crm_id) REFERENCES customers (crm_id) ON DELETE CASCADE);`;

const CUSTOMER_COLUMNS = ['customer_no', 'crm_id', 'name', 'city', 'street', 'phone', 'notes', 'modified_at', 'crm_version'];
const CONTACT_COLUMNS = ['crm_id', 'customer_crm_id', 'full_name', 'email', 'phone', 'notes'];

/** ISO 8601 UTC ↔ a `DATETIME(3)` literal (the column has no zone: it holds UTC). */
const toDatetime = (iso: string | null) => (iso === null ? null : iso.replace('T', ' ').replace('Z', ''));
const fromDatetime = (text: string | null) => (text === null ? null : new Date(`${text.replace(' ', 'T')}Z`).toISOString());

type Row = Record<string, unknown>;

export class MysqlErp {
  private constructor(
    private readonly admin: Connection,
    private readonly server: URL,
    readonly database: string,
  ) {}

  /** Creates `database` (dropping an old one of that name) and moves the rows of the SQLite `erpFile` into it (the file is removed). */
  static async create(serverUrl: string, database: string, erpFile: string): Promise<MysqlErp> {
    if (!/^\w+$/.test(database)) throw new Error(`database name "${database}" must be letters, digits and _`);
    const server = new URL(serverUrl);
    server.pathname = '/';
    const admin = await createConnection({ uri: server.toString(), multipleStatements: true, dateStrings: true, charset: 'utf8mb4' });
    const erp = new MysqlErp(admin, server, database);
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${database}; CREATE DATABASE ${database} CHARACTER SET utf8mb4; USE ${database};${MYSQL_ERP_SCHEMA}`);
      const seed = new Database(erpFile, { readonly: true, fileMustExist: true });
      let customers: Row[];
      try {
        customers = seed.prepare(`SELECT ${CUSTOMER_COLUMNS.join(', ')} FROM customers`).all() as Row[];
      } finally {
        seed.close();
      }
      if (customers.length > 0) {
        const values = customers.map((c) => CUSTOMER_COLUMNS.map((k) => (k === 'modified_at' ? toDatetime(c[k] as string | null) : c[k])));
        await admin.query(`INSERT INTO customers (${CUSTOMER_COLUMNS.join(', ')}) VALUES ?`, [values]);
      }
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(erpFile + suffix, { force: true });
      return erp;
    } catch (err) {
      await erp.drop();
      throw err;
    }
  }

  /** The `erp` connection of the config: server settings, the password (if any) through an env var the host inherits. */
  connection(): { name: 'erp'; type: string; settings: object; secrets?: object } {
    const password = decodeURIComponent(this.server.password);
    if (password) process.env[PASSWORD_SETTING] = password;
    return {
      name: 'erp',
      type: 'mysql',
      settings: { host: this.server.hostname, port: Number(this.server.port || 3306), user: decodeURIComponent(this.server.username), database: this.database },
      ...(password ? { secrets: { password: PASSWORD_SETTING } } : {}),
    };
  }

  /** Writes the ERP's tables as they are now into a fresh SQLite `erpFile` (the SQLite ERP's schema; stamps as ISO 8601 UTC). */
  async copyInto(erpFile: string): Promise<void> {
    const [customers] = (await this.admin.query(`SELECT ${CUSTOMER_COLUMNS.join(', ')} FROM ${this.database}.customers`)) as unknown as [Row[]];
    const [contacts] = (await this.admin.query(`SELECT ${CONTACT_COLUMNS.join(', ')} FROM ${this.database}.contacts`)) as unknown as [Row[]];
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(erpFile + suffix, { force: true });
    const db = new Database(erpFile);
    try {
      db.exec(ERP_SCHEMA);
      const insert = (table: string, columns: string[]) => db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
      const customer = insert('customers', CUSTOMER_COLUMNS);
      const contact = insert('contacts', CONTACT_COLUMNS);
      db.transaction(() => {
        for (const c of customers) customer.run(...CUSTOMER_COLUMNS.map((k) => (k === 'modified_at' ? fromDatetime(c[k] as string | null) : c[k])));
        for (const c of contacts) contact.run(...CONTACT_COLUMNS.map((k) => c[k]));
      })();
    } finally {
      db.close();
    }
  }

  /** Drops the database and closes the admin connection. */
  async drop(): Promise<void> {
    try {
      await this.admin.query(`DROP DATABASE IF EXISTS ${this.database}`);
    } finally {
      await this.admin.end();
    }
  }
}
