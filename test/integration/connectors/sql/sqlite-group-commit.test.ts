import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteDatabase } from '../../../../connectors/sql/sqlite-dialect';

/** Group commit of the SQLite connection, against real database files. */
describe('SqliteDatabase group commit', () => {
  let dir: string;
  let file: string;
  let db: SqliteDatabase;
  let observer: Database.Database;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-group-commit-'));
    file = path.join(dir, 'target.db');
    const setup = new Database(file);
    setup.pragma('journal_mode = WAL');
    setup.exec(`CREATE TABLE parent (id TEXT PRIMARY KEY);
      CREATE TABLE child (id TEXT PRIMARY KEY, amount INTEGER NOT NULL,
        parent_id TEXT REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
      CREATE TABLE kid (id TEXT PRIMARY KEY, parent_id TEXT NOT NULL REFERENCES parent(id));
      INSERT INTO parent VALUES ('P1');`);
    setup.close();
    db = new SqliteDatabase({ file, connectionName: 'target', busyTimeoutMs: 50, groupCommit: true });
    observer = new Database(file, { readonly: true });
  });

  afterEach(async () => {
    await db.close();
    observer.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const insert = (id: string, amount: number | null, parent: string | null = 'P1') =>
    db.query('INSERT INTO child (id, amount, parent_id) VALUES (?, ?, ?)', [id, amount, parent], `insert ${id}`);
  const ids = () => (observer.prepare('SELECT id FROM child ORDER BY id').all() as Array<{ id: string }>).map((r) => r.id);
  const walFrames = () => {
    const checkpoint = new Database(file);
    try {
      // PASSIVE with a reader holding no snapshot: reports the WAL's frame count.
      return (checkpoint.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0].log;
    } finally {
      checkpoint.close();
    }
  };

  it('commits the writes of one turn in one transaction, visible to others when each resolves', async () => {
    await insert('warm-up', 1); // opens the connection
    const framesBefore = walFrames();
    const writes = Array.from({ length: 20 }, (_, i) => insert(`c${String(i).padStart(2, '0')}`, i));
    await Promise.all(writes);
    expect(ids()).toHaveLength(21);
    // One transaction dirties the table's page(s) once; twenty would append at least twenty frames.
    expect(walFrames() - framesBefore).toBeLessThan(5);
  });

  it('without groupCommit (the default) commits each write on its own', async () => {
    const plain = new SqliteDatabase({ file, connectionName: 'plain' });
    try {
      await plain.query('INSERT INTO child (id, amount, parent_id) VALUES (?, ?, ?)', ['p0', 0, 'P1'], 'insert p0');
      const framesBefore = walFrames();
      await Promise.all(Array.from({ length: 20 }, (_, i) => plain.query('INSERT INTO child (id, amount, parent_id) VALUES (?, ?, ?)', [`p${i + 1}`, i, 'P1'], 'insert')));
      expect(walFrames() - framesBefore).toBeGreaterThanOrEqual(20);
    } finally {
      await plain.close();
    }
  });

  it('fails only the write whose statement fails; the others commit', async () => {
    const results = await Promise.allSettled([insert('a', 1), insert('b', null), insert('c', 3)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({
      name: 'PermanentError',
      message: expect.stringContaining('sqlite connection "target": insert b: a required field is null'),
    });
    expect(ids()).toEqual(['a', 'c']);
  });

  it('runs a write that failed in its group again after the COMMIT: a child written before its parent succeeds', async () => {
    const kid = db.query('INSERT INTO kid (id, parent_id) VALUES (?, ?)', ['k1', 'P2'], 'insert kid k1');
    const parent = db.query('INSERT INTO parent (id) VALUES (?)', ['P2'], 'insert parent P2');
    const orphan = db.query('INSERT INTO kid (id, parent_id) VALUES (?, ?)', ['k2', 'P404'], 'insert kid k2');
    const results = await Promise.allSettled([kid, parent, orphan]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ name: 'TransitiveError', message: expect.stringContaining('insert kid k2') });
    expect(observer.prepare('SELECT id, parent_id FROM kid').all()).toEqual([{ id: 'k1', parent_id: 'P2' }]);
  });

  it('runs the writes one by one when the transaction cannot commit, so one bad write fails alone', async () => {
    // A deferred foreign key is only checked at COMMIT: the whole group fails there.
    const results = await Promise.allSettled([insert('x1', 1), insert('x2', 2, 'missing'), insert('x3', 3)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ name: 'TransitiveError' });
    expect(ids()).toEqual(['x1', 'x3']);
  });

  it('fails every write of the group as transient when another writer holds the database, and recovers', async () => {
    await insert('first', 1);
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    try {
      const results = await Promise.allSettled([insert('b1', 1), insert('b2', 2)]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
      expect((results[0] as PromiseRejectedResult).reason).toMatchObject({ name: 'TransientError', message: expect.stringContaining('busy') });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    await Promise.all([insert('b1', 1), insert('b2', 2)]);
    expect(ids()).toEqual(['b1', 'b2', 'first']);
  });

  it('runs reads at once, outside the pending group', async () => {
    const write = insert('r1', 1);
    // Issued in the same turn, before the group commits: it does not see the pending write.
    const read = db.query('SELECT count(*) AS n FROM child', [], 'count');
    expect(await read).toEqual([{ n: 0 }]);
    await write;
    expect(await db.query('SELECT count(*) AS n FROM child', [], 'count')).toEqual([{ n: 1 }]);
  });

  it('firstWithRows: returns the first statement with rows, runs no later one, and names the one that failed', async () => {
    await insert('u1', 1);
    const update = (id: string) => ({ sql: 'UPDATE child SET amount = amount + 1 WHERE id = ? RETURNING amount', params: [id], operation: `update ${id}` });
    // Inserting an existing key would fail: it is not run when the update matched.
    const insertAgain = (id: string, amount: number | null) => ({ sql: 'INSERT INTO child (id, amount) VALUES (?, ?) RETURNING amount', params: [id, amount], operation: `insert ${id}` });
    expect(await db.firstWithRows([update('u1'), insertAgain('u1', 5)])).toEqual([{ amount: 2 }]);
    expect(await db.firstWithRows([update('u2'), insertAgain('u2', 7)])).toEqual([{ amount: 7 }]);
    await expect(db.firstWithRows([update('u3'), insertAgain('u3', null)])).rejects.toMatchObject({
      name: 'PermanentError',
      message: expect.stringContaining('sqlite connection "target": insert u3: a required field is null'),
    });
    expect(ids()).toEqual(['u1', 'u2']);
  });

  it('writes what is pending when the connection closes', async () => {
    const write = insert('late', 1);
    await db.close();
    await write;
    expect(ids()).toEqual(['late']);
  });
});
