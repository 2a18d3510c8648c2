import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError } from '../platform/errors';
import { LOCAL_TABLES_FILE } from './local-tables-file';
import { SqliteTableStore } from './sqlite-table-store';
import type { TableStorage, TableStore } from './table-store';

export { LOCAL_TABLES_FILE };

/** How long a write waits for another process's lock (the host and a CLI command), ms. */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * The local host's tables in one SQLite file, `<dataDir>/tables.db` (`HIGHWATER_LOCAL_TABLES=sqlite`):
 * WAL, so that the host, its processing worker and CLI commands read and write it at once;
 * `synchronous = NORMAL`, which survives a crash of the process (Azurite, which keeps its tables
 * in memory and saves them now and then, loses the last seconds).
 */
export class SqliteTableStorage implements TableStorage {
  readonly description: string;
  private readonly stores = new Map<string, TableStore>();
  private db: Database.Database | undefined;

  private constructor(
    private readonly file: string,
    db: Database.Database,
  ) {
    this.db = db;
    this.description = `SQLite tables in ${file}`;
  }

  /** Opens (creating it and the data folder if missing) the tables file of `dataDir`. @throws ConfigError naming the file. */
  static open(dataDir: string): SqliteTableStorage {
    const file = path.join(dataDir, LOCAL_TABLES_FILE);
    let db: Database.Database | undefined;
    try {
      fs.mkdirSync(dataDir, { recursive: true });
      db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      return new SqliteTableStorage(file, db);
    } catch (err) {
      db?.close();
      throw new ConfigError(`the local tables file ${file} cannot be used: ${(err as Error).message}`, { cause: err });
    }
  }

  async table(name: string): Promise<TableStore> {
    if (!this.db) throw new Error(`the local tables in ${this.file} are closed`);
    let store = this.stores.get(name.toLowerCase());
    if (!store) {
      store = new SqliteTableStore(this.db, name);
      this.stores.set(name.toLowerCase(), store);
    }
    return store;
  }

  async close(): Promise<void> {
    this.stores.clear();
    this.db?.close();
    this.db = undefined;
  }
}
