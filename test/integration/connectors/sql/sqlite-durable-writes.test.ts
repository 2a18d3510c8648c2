import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { SqlSource } from '../../../../connectors/sql/sql-source';
import { sqliteConnectorFactory } from '../../../../connectors/sql/sql-connectors';
import { SqliteDatabase } from '../../../../connectors/sql/sqlite-dialect';

/**
 * `synchronous: 'FULL'`: a write resolves only once it is on disk. On a WAL database the
 * connection commits with `synchronous = NORMAL` and each write waits for an fdatasync of the WAL
 * that started after its commit; on a rollback-journal database the commit itself syncs (FULL).
 */
describe('SqliteDatabase durable writes', () => {
  let dir: string;
  let file: string;
  const opened: SqliteDatabase[] = [];

  function createTarget(journalMode: 'WAL' | 'DELETE'): void {
    const setup = new Database(file);
    setup.pragma(`journal_mode = ${journalMode}`);
    setup.exec('CREATE TABLE items (id TEXT PRIMARY KEY, n INTEGER NOT NULL)');
    setup.close();
  }

  /** A syncer that records what an observer saw when each sync started, and finishes when told. */
  function recordingSyncer() {
    const observer = () => new Database(file, { readonly: true });
    const rounds: Array<{ file: string; visible: string[]; finish: (error?: Error) => void }> = [];
    const syncFile = (wal: string) =>
      new Promise<void>((resolve, reject) => {
        const o = observer();
        const visible = (o.prepare('SELECT id FROM items ORDER BY id').all() as Array<{ id: string }>).map((r) => r.id);
        o.close();
        rounds.push({ file: wal, visible, finish: (error) => (error ? reject(error) : resolve()) });
      });
    return { rounds, syncFile };
  }

  function open(options: Partial<ConstructorParameters<typeof SqliteDatabase>[0]> = {}): SqliteDatabase {
    const db = new SqliteDatabase({ file, connectionName: 'target', synchronous: 'FULL', ...options });
    opened.push(db);
    return db;
  }

  const insert = (db: SqliteDatabase, id: string) => db.query('INSERT INTO items (id, n) VALUES (?, 1)', [id], `insert ${id}`);
  const settledYet = async (p: Promise<unknown>) => {
    let done = false;
    void p.then(() => (done = true), () => (done = true));
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    return done;
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-durable-'));
    file = path.join(dir, 'target.db');
  });

  afterEach(async () => {
    for (const db of opened.splice(0)) await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it.each([false, true])('on a WAL database a write resolves after a WAL sync that started after its commit (groupCommit %s)', async (groupCommit) => {
    createTarget('WAL');
    const { rounds, syncFile } = recordingSyncer();
    const db = open({ syncFile, groupCommit });
    const first = insert(db, 'a');
    expect(await settledYet(first)).toBe(false);
    expect(rounds.map((r) => [r.file, r.visible])).toEqual([[`${file}-wal`, ['a']]]);
    const second = insert(db, 'b'); // committed while the first sync runs: waits for the next
    await new Promise((r) => setImmediate(r));
    rounds[0].finish();
    await first;
    expect(await settledYet(second)).toBe(false);
    expect(rounds[1].visible).toEqual(['a', 'b']);
    rounds[1].finish();
    await second;
    // An upsert's statements as one unit wait the same way.
    const unit = db.firstWithRows([
      { sql: 'UPDATE items SET n = n + 1 WHERE id = ? RETURNING id', params: ['c'], operation: 'update c' },
      { sql: 'INSERT INTO items (id, n) VALUES (?, 1) RETURNING id', params: ['c'], operation: 'insert c' },
    ]);
    expect(await settledYet(unit)).toBe(false);
    rounds[2].finish();
    await expect(unit).resolves.toEqual([{ id: 'c' }]);
  });

  it('reads do not wait for a sync', async () => {
    createTarget('WAL');
    const { rounds, syncFile } = recordingSyncer();
    const db = open({ syncFile });
    await expect(db.query('SELECT count(*) AS n FROM items', [], 'count')).resolves.toEqual([{ n: 0 }]);
    await expect(db.query('PRAGMA synchronous', [], 'read synchronous')).resolves.toEqual([{ synchronous: 1 }]);
    expect(rounds).toEqual([]);
  });

  it('a failed sync fails the write as transient (retried): whether it is on disk is unknown', async () => {
    createTarget('WAL');
    const { rounds, syncFile } = recordingSyncer();
    const db = open({ syncFile });
    const write = insert(db, 'a');
    await settledYet(write);
    rounds[0].finish(new Error('EIO: i/o error, fdatasync'));
    await expect(write).rejects.toMatchObject({
      name: 'TransientError',
      message: 'sqlite connection "target": insert a: the write could not be flushed to disk: EIO: i/o error, fdatasync',
    });
  });

  it('on a rollback-journal database the commit syncs itself (FULL): no WAL sync', async () => {
    createTarget('DELETE');
    const { rounds, syncFile } = recordingSyncer();
    const db = open({ syncFile });
    await insert(db, 'a');
    expect(rounds).toEqual([]);
    await expect(db.query('PRAGMA synchronous', [], 'read synchronous')).resolves.toEqual([{ synchronous: 2 }]);
  });

  it.each([
    [undefined, 'WAL', 1],
    [undefined, 'DELETE', 2],
    ['NORMAL', 'DELETE', 1],
  ] as const)('with synchronous %s a %s database keeps synchronous = %i and never waits for a WAL sync', async (synchronous, mode, expected) => {
    createTarget(mode);
    const { rounds, syncFile } = recordingSyncer();
    const db = open({ syncFile, synchronous });
    await insert(db, 'a');
    expect(rounds).toEqual([]);
    await expect(db.query('PRAGMA synchronous', [], 'read synchronous')).resolves.toEqual([{ synchronous: expected }]);
  });

  it('syncs the real WAL file by default', async () => {
    createTarget('WAL');
    const db = open();
    await insert(db, 'a');
    await Promise.all(['b', 'c', 'd'].map((id) => insert(db, id)));
    const check = new Database(file, { readonly: true });
    try {
      expect(check.prepare('SELECT count(*) AS n FROM items').get()).toEqual({ n: 4 });
    } finally {
      check.close();
    }
  });

  it('takes the setting from the connection: synchronous NORMAL on a rollback-journal file', async () => {
    createTarget('DELETE');
    const ctx = (settings: Record<string, unknown>) => ({
      connection: { name: 'erp', type: 'sqlite', settings: { file: 'target.db', ...settings }, secrets: {}, maxConcurrency: 8 },
      resolveSecret: () => undefined,
      configDir: dir,
    });
    // pragma_synchronous is a table-valued function: the source's resolver lookup reads it like a table.
    const level = async (settings: Record<string, unknown>) => {
      const source = sqliteConnectorFactory.createSource!(ctx(settings)) as SqlSource;
      try {
        for (const value of [0, 1, 2, 3]) if ((await source.lookupRelated('pragma_synchronous', 'synchronous', 'synchronous', value)) !== undefined) return value;
        return undefined;
      } finally {
        await source.close();
      }
    };
    expect(await level({ synchronous: 'NORMAL' })).toBe(1);
    expect(await level({})).toBe(2);
  });

  it('opens with a 2 MiB page cache unless cacheSizeKb says otherwise (better-sqlite3 would give 16 MiB)', async () => {
    createTarget('WAL');
    await expect(open().query('PRAGMA cache_size', [], 'read cache_size')).resolves.toEqual([{ cache_size: -2048 }]);
    await expect(open({ cacheSizeKb: 512 }).query('PRAGMA cache_size', [], 'read cache_size')).resolves.toEqual([{ cache_size: -512 }]);
  });

  it('checkpoints its WAL after 8192 pages, not SQLite’s 1000', async () => {
    createTarget('WAL');
    await expect(open().query('PRAGMA wal_autocheckpoint', [], 'read wal_autocheckpoint')).resolves.toEqual([{ wal_autocheckpoint: 8192 }]);
  });
});
