import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteDatabase } from '../../../connectors/sql/sqlite-dialect';
import { CheckpointWorker } from '../../../src/sqlite/checkpoint-worker';
import { WalCheckpointer } from '../../../src/sqlite/wal-checkpointer';
import { until } from '../../support/fault-injection';

const MB = 1024 * 1024;
const sizeOf = (file: string) => (existsSync(file) ? statSync(file).size : 0);

/** Until `file` has grown to `bytes`: the worker copied the WAL into it. */
const grownTo = (file: string, bytes: number) => until(`a checkpoint of ${path.basename(file)}`, () => (sizeOf(file) >= bytes ? true : undefined), 10_000, 20);

/** A WAL database whose own auto-checkpoint is off, with ~`pages` pages waiting in its WAL. */
function walDatabase(file: string, pages: number): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE t (body BLOB)');
  const insert = db.prepare('INSERT INTO t VALUES (?)');
  // A blob of 3,000 bytes takes a page.
  db.transaction(() => {
    for (let i = 0; i < pages; i++) insert.run(Buffer.alloc(3000, i % 251));
  })();
  return db;
}

describe('WAL checkpoints on the one checkpoint worker of the process', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'highwater-wal-checkpointer-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('serves several files from one worker, keeps serving the others when one closes, and stops with the last', async () => {
    const [a, b] = ['a.db', 'b.db'].map((name) => path.join(dir, name));
    const [dbA, dbB] = [walDatabase(a, 5000), walDatabase(b, 5000)];
    const [sizeA, sizeB] = [sizeOf(a), sizeOf(b)];
    const [one, two] = [new WalCheckpointer(a, 8192), new WalCheckpointer(b, 8192)];
    try {
      one.wrote(20 * MB);
      await grownTo(a, sizeA + 15 * MB);
      expect(sizeOf(b)).toBe(sizeB);
      two.wrote(20 * MB);
      await grownTo(b, sizeB + 15 * MB);
      expect(CheckpointWorker.running).toBe(true);

      await one.close();
      expect(CheckpointWorker.running).toBe(true);
      dbB.transaction(() => {
        for (let i = 0; i < 5000; i++) dbB.prepare('INSERT INTO t VALUES (?)').run(Buffer.alloc(3000, 9));
      })();
      const grown = sizeOf(b);
      two.wrote(20 * MB);
      await grownTo(b, grown + 15 * MB);
    } finally {
      await one.close();
      await two.close();
    }
    expect(CheckpointWorker.running).toBe(false);
    // Closed: what is written now stays in the WAL.
    dbA.transaction(() => {
      for (let i = 0; i < 5000; i++) dbA.prepare('INSERT INTO t VALUES (?)').run(Buffer.alloc(3000, 7));
    })();
    one.wrote(20 * MB);
    const after = sizeOf(a);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sizeOf(a)).toBe(after);
    dbA.close();
    dbB.close();
  });

  it("checkpoints a SQLite target's WAL long before the connection's own auto-checkpoint (32 MiB), and stops on close", async () => {
    const file = path.join(dir, 'target.db');
    const setup = new Database(file);
    setup.pragma('journal_mode = WAL');
    setup.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)');
    setup.close();
    const db = new SqliteDatabase({ file, connectionName: 'target', busyTimeoutMs: 50 });
    const initial = sizeOf(file);
    try {
      // One row takes a page: 6,000 writes are ~24 MiB of WAL, below the 8,192-page bound.
      for (let i = 0; i < 6000 && sizeOf(file) < initial + 8 * MB; i++) {
        await db.query('INSERT INTO t (id, body) VALUES (?, ?)', [i, Buffer.alloc(3000, i % 251)], `insert ${i}`);
        if (i % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      await grownTo(file, initial + 8 * MB);
      expect(CheckpointWorker.running).toBe(true);
    } finally {
      await db.close();
    }
    expect(CheckpointWorker.running).toBe(false);
    const check = new Database(file, { readonly: true });
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    check.close();
  });
});
