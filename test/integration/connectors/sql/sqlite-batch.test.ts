import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { TargetBatch } from '../../../../connectors/base/target-batch';
import { SqliteDatabase, type SqliteOptions } from '../../../../connectors/sql/sqlite-dialect';
import { SqlTarget } from '../../../../connectors/sql/sql-target';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage, type JsonValue } from '../../../../src/model/queue-message';

/** SQLite specifics of `applyBatch`: group failures that reject with nothing half applied, durability. */
describe('SqlTarget.applyBatch on SQLite: the transaction as a whole', () => {
  let dir: string;
  let file: string;
  const opened: SqliteDatabase[] = [];
  const mapping: Mapping = { name: 'items', source: { entity: 'src', key: ['id'] }, target: { entity: 'items', key: ['id'] }, fields: [] };
  const batchOf = (rows: Array<Record<string, JsonValue>>): TargetBatch => ({
    job: { name: 'items' } as Job, mapping, action: JobActionType.NewUpdate,
    messages: rows.map((fields) => createQueueMessage({ jobName: 'items', action: JobActionType.NewUpdate, sourceKey: String(fields.id), targetKey: { id: fields.id }, changeTracker: 'x', fields })),
  });
  const rows = (count: number, size = 10) => Array.from({ length: count }, (_, i) => ({ id: `I-${i}`, body: 'x'.repeat(size) }));
  const count = () => {
    const o = new Database(file, { readonly: true });
    try {
      return (o.prepare('SELECT count(*) AS n FROM items').get() as { n: number }).n;
    } finally {
      o.close();
    }
  };
  const open = (options: Partial<SqliteOptions> = {}) => {
    const db = new SqliteDatabase({ file, connectionName: 'target', ...options });
    opened.push(db);
    return { db, target: new SqlTarget(db, { connectionName: 'target' }) };
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-sqlite-batch-'));
    file = path.join(dir, 'target.db');
    const setup = new Database(file);
    setup.pragma('journal_mode = WAL');
    setup.exec(`CREATE TABLE parent (id TEXT PRIMARY KEY);
      CREATE TABLE items (id TEXT PRIMARY KEY, body TEXT, parent_id TEXT REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)`);
    setup.close();
  });

  afterEach(async () => {
    for (const db of opened.splice(0)) await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('rejects a group with SQLITE_BUSY (transient) while another connection holds the write lock; nothing is applied', async () => {
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    const { target } = open({ busyTimeoutMs: 20 });
    try {
      await expect(target.applyBatch(batchOf(rows(50)))).rejects.toMatchObject({ name: 'TransientError', details: { code: 'SQLITE_BUSY' } });
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(count()).toBe(0);
    expect(await target.applyBatch(batchOf(rows(50)))).toHaveLength(50);
    expect(count()).toBe(50);
  });

  it('rejects a group that runs out of space half way (SQLITE_FULL) and keeps none of it', async () => {
    const { db, target } = open();
    await target.applyBatch(batchOf(rows(1)));
    await db.query('PRAGMA max_page_count = 12', [], 'limit the file');
    await expect(target.applyBatch(batchOf(rows(500, 400)))).rejects.toMatchObject({ name: 'TransientError', details: { code: 'SQLITE_FULL' } });
    expect(count()).toBe(1);
    // The connection is usable afterwards, outside any transaction.
    expect((await target.applyBatch(batchOf([{ id: 'small', body: 'y' }])))[0].status).toBe('applied');
    expect(count()).toBe(2);
  });

  it('isolates a deferred foreign key that fails the COMMIT by bisection; the others are applied', async () => {
    const { target } = open();
    const group = rows(40).map((r, i) => ({ ...r, parent_id: i === 13 ? 'missing' : null }));
    const outcomes = await target.applyBatch(batchOf(group));
    expect(outcomes.flatMap((o, i) => (o.status === 'failed' ? [[i, (o.error as Error).name]] : []))).toEqual([[13, 'TransitiveError']]);
    expect(count()).toBe(39);
  });

  it('isolates an item whose constraint rolls back the whole transaction (ON CONFLICT ROLLBACK) by bisection', async () => {
    const setup = new Database(file);
    setup.exec('CREATE TABLE rb (id TEXT PRIMARY KEY, body TEXT NOT NULL ON CONFLICT ROLLBACK)');
    setup.close();
    const { target } = open();
    const batch = batchOf(rows(30).map((r, i) => ({ ...r, body: i === 21 ? null : r.body })));
    const outcomes = await target.applyBatch({ ...batch, mapping: { ...mapping, target: { entity: 'rb', key: ['id'] } } });
    expect(outcomes.flatMap((o, i) => (o.status === 'failed' ? [[i, (o.error as Error).name]] : []))).toEqual([[21, 'PermanentError']]);
    const o = new Database(file, { readonly: true });
    expect((o.prepare('SELECT count(*) AS n FROM rb').get() as { n: number }).n).toBe(29);
    o.close();
  });

  it("with synchronous 'FULL' on a WAL database resolves only after the WAL sync that followed the commit", async () => {
    let finish!: () => void;
    const syncs: string[] = [];
    const syncFile = (wal: string) => {
      syncs.push(wal);
      return new Promise<void>((resolve) => (finish = resolve));
    };
    const { target } = open({ synchronous: 'FULL', syncFile });
    let done = false;
    const applying = target.applyBatch(batchOf(rows(20))).then((o) => ((done = true), o));
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(count()).toBe(20); // committed, but not yet reported
    expect(done).toBe(false);
    expect(syncs).toEqual([`${file}-wal`]);
    finish();
    expect(await applying).toHaveLength(20);
  });
});
