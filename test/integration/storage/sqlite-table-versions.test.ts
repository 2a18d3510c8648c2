import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { LOCAL_TABLES_FILE, SqliteTableStorage } from '../../../src/storage/sqlite-table-storage';

/** A tables file written before rows had versions: its rows read, and take conditional writes. */
describe('SqliteTableStore on a file without versions', () => {
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-tables-versions-'));
    const db = new Database(path.join(dir, LOCAL_TABLES_FILE));
    db.exec('CREATE TABLE "t_watermark" (pk TEXT NOT NULL, rk TEXT NOT NULL, props TEXT NOT NULL, PRIMARY KEY (pk, rk)) WITHOUT ROWID');
    db.prepare('INSERT INTO "t_watermark" (pk, rk, props) VALUES (?, ?, ?)').run('jobs', 'orders', JSON.stringify({ Watermark: '2026-01-01', At: { $d: '2026-01-02T03:04:05.000Z' } }));
    db.close();
  });

  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads the old rows, versions them on their next write, and takes a conditional write on the version read', async () => {
    const storage = SqliteTableStorage.open(dir);
    try {
      const table = await storage.table('watermark');
      expect(await table.get('jobs', 'orders')).toEqual({ partitionKey: 'jobs', rowKey: 'orders', properties: { Watermark: '2026-01-01', At: new Date('2026-01-02T03:04:05.000Z') } });
      const old = (await table.getVersioned('jobs', 'orders'))!;
      expect(await table.putIf({ partitionKey: 'jobs', rowKey: 'orders', properties: { Watermark: '2026-02-01' } }, old.version)).toBe(true);
      expect(await table.putIf({ partitionKey: 'jobs', rowKey: 'orders', properties: { Watermark: '2026-03-01' } }, old.version)).toBe(false);
      expect((await table.get('jobs', 'orders'))?.properties).toEqual({ Watermark: '2026-02-01' });
      // A second open (another process) finds the column there.
      const again = SqliteTableStorage.open(dir);
      try {
        expect((await (await again.table('watermark')).getVersioned('jobs', 'orders'))?.version).toBe((await table.getVersioned('jobs', 'orders'))?.version);
      } finally {
        await again.close();
      }
    } finally {
      await storage.close();
    }
  });
});
