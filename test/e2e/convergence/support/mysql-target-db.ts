import { createConnection } from 'mysql2/promise';
import type { TargetRows } from './verify';

/**
 * The harness's target on MariaDB / MySQL: the SQLite target's tables (`createTargetDatabase`)
 * in a database of their own, items referencing categories (InnoDB foreign key: an item before
 * its category is transitive), and triggers that log every write, so that the verdict counts
 * duplicates and tells an overwritten change from a lost one as it does on SQLite. Versions are
 * kept as the text the messages carry.
 */
export class MysqlTargetDb {
  private constructor(
    private readonly url: string,
    readonly database: string,
  ) {}

  /** Creates `database` (dropping an old one of that name) with the target tables. */
  static async create(serverUrl: string, database: string): Promise<MysqlTargetDb> {
    const url = new URL(serverUrl);
    const admin = await createConnection({ uri: url.toString(), multipleStatements: true });
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${database}; CREATE DATABASE ${database} CHARACTER SET utf8mb4; USE ${database};
        CREATE TABLE categories (id varchar(64) PRIMARY KEY, title text NOT NULL, modified_at varchar(40));
        CREATE TABLE items (item_id varchar(64) PRIMARY KEY, category_id varchar(64) NOT NULL REFERENCES categories (id),
          title text NOT NULL, quantity int NOT NULL, note text, modified_at varchar(40));
        CREATE TABLE apply_log (seq bigint AUTO_INCREMENT PRIMARY KEY, tbl varchar(20) NOT NULL, record varchar(64) NOT NULL, version varchar(40), op varchar(10) NOT NULL);
        CREATE TRIGGER categories_ins AFTER INSERT ON categories FOR EACH ROW INSERT INTO apply_log (tbl, record, version, op) VALUES ('categories', NEW.id, NEW.modified_at, 'upsert');
        CREATE TRIGGER categories_upd AFTER UPDATE ON categories FOR EACH ROW INSERT INTO apply_log (tbl, record, version, op) VALUES ('categories', NEW.id, NEW.modified_at, 'upsert');
        CREATE TRIGGER items_ins AFTER INSERT ON items FOR EACH ROW INSERT INTO apply_log (tbl, record, version, op) VALUES ('items', NEW.item_id, NEW.modified_at, 'upsert');
        CREATE TRIGGER items_upd AFTER UPDATE ON items FOR EACH ROW INSERT INTO apply_log (tbl, record, version, op) VALUES ('items', NEW.item_id, NEW.modified_at, 'upsert');
        CREATE TRIGGER items_del AFTER DELETE ON items FOR EACH ROW INSERT INTO apply_log (tbl, record, version, op) VALUES ('items', OLD.item_id, OLD.modified_at, 'delete');`);
    } finally {
      await admin.end();
    }
    url.pathname = `/${database}`;
    return new MysqlTargetDb(url.toString(), database);
  }

  /** The rows, in the field order the verdict compares (as the SQLite target gives them). */
  async read(): Promise<TargetRows> {
    const conn = await createConnection({ uri: this.url });
    try {
      const rows = async <T>(sql: string) => (await conn.query(sql))[0] as T[];
      return {
        categories: await rows<TargetRows['categories'][number]>('SELECT id, title, modified_at FROM categories'),
        items: await rows<TargetRows['items'][number]>('SELECT item_id, category_id, title, quantity, note, modified_at FROM items'),
        log: await rows<TargetRows['log'][number]>('SELECT tbl, record AS `key`, version, op FROM apply_log'),
      };
    } finally {
      await conn.end();
    }
  }

  /** Empties a table, as an operator does before a resync. */
  async clear(table: 'items' | 'categories'): Promise<void> {
    const conn = await createConnection({ uri: this.url });
    try {
      await conn.query(`DELETE FROM ${table}`);
    } finally {
      await conn.end();
    }
  }

  async drop(): Promise<void> {
    const conn = await createConnection({ uri: this.url });
    try {
      await conn.query(`DROP DATABASE IF EXISTS ${this.database}`);
    } finally {
      await conn.end();
    }
  }
}
