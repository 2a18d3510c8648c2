import Database from 'better-sqlite3';
import { BulkInsert } from '../../../../src/bus/local/bulk-insert';

describe('BulkInsert', () => {
  it.each([0, 1, 7, 8, 9, 31, 32, 33, 77])('inserts %i rows in order, whatever the chunking', (count) => {
    const db = new Database(':memory:');
    try {
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, body BLOB)');
      const insert = new BulkInsert(db, 't', ['id', 'name', 'body']);
      const values: unknown[] = [];
      for (let i = 1; i <= count; i++) values.push(i * 10, `n${i}`, Buffer.from([i]));
      insert.run(values);
      const rows = db.prepare('SELECT id, name, body FROM t ORDER BY rowid').all() as Array<{ id: number; name: string; body: Buffer }>;
      expect(rows.map((r) => [r.id, r.name, r.body[0]])).toEqual(Array.from({ length: count }, (_, i) => [(i + 1) * 10, `n${i + 1}`, i + 1]));
    } finally {
      db.close();
    }
  });
});
