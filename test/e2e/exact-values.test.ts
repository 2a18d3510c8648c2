import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { readSettings } from '../../src/platform/settings';
import { startLocalHost, type LocalHost } from '../../src/host/local-host';
import { silentLogger } from '../../src/telemetry/logger';

/**
 * The value matrix SQLite → SQLite through the whole local host (schedule, detection, the local
 * bus, processing), as a user runs it: every value arrives unchanged, and a value the target
 * column cannot hold exactly is dead-lettered naming the column instead of being rounded.
 */
const BIG = ['1234567890123456789', '9007199254740993', '9223372036854775807', '-9223372036854775808'];
const DECIMAL = '12345678901234567890.123456789012';
const BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

describe('exact values through the local host', () => {
  let dir: string;
  let host: LocalHost | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-exact-'));
    const src = new Database(path.join(dir, 'src.db'));
    src.exec('CREATE TABLE vals (id INTEGER PRIMARY KEY, i8 INTEGER, dec TEXT, bin BLOB, ts TEXT, doc TEXT, ver INTEGER)');
    const insert = src.prepare('INSERT INTO vals VALUES (?, ?, ?, ?, ?, ?, ?)');
    BIG.forEach((v, i) => insert.run(BigInt(v), BigInt(v), i === 0 ? DECIMAL : null, i === 0 ? BYTES : null, i === 0 ? '2026-01-02 03:04:05.123456+02' : null, i === 0 ? '{"a":[1,"x"]}' : null, i + 1));
    // The decimal into a NUMERIC column: SQLite would keep 15–17 digits of it.
    insert.run(5, 5, DECIMAL, null, null, null, 5);
    src.close();
    const tgt = new Database(path.join(dir, 'tgt.db'));
    tgt.exec('CREATE TABLE vals (id INTEGER PRIMARY KEY, i8 INTEGER, dec TEXT, bin BLOB, ts TEXT, doc TEXT)');
    tgt.exec('CREATE TABLE rounded (id INTEGER PRIMARY KEY, dec NUMERIC)');
    tgt.close();
    writeFileSync(path.join(dir, 'connections.yaml'), 'connections:\n  - { name: src, type: sqlite, settings: { file: ./src.db } }\n  - { name: tgt, type: sqlite, settings: { file: ./tgt.db } }\n');
    const fields = ['id', 'i8', 'dec', 'bin', 'ts', 'doc'].map((f) => `      - { target: ${f}, source: ${f} }`).join('\n');
    writeFileSync(
      path.join(dir, 'mappings.yaml'),
      `mappings:\n  - name: vals\n    source: { entity: vals, key: [id] }\n    target: { entity: vals, key: [id] }\n    fields:\n${fields}\n` +
        '  - name: rounded\n    source: { entity: vals, key: [id] }\n    target: { entity: rounded, key: [id] }\n    fields:\n      - { target: id, source: id }\n      - { target: dec, source: dec }\n',
    );
    const job = (name: string, mapping: string, order: number, filter = '') =>
      `  - name: ${name}\n    order: ${order}\n    schedule: '* * * * * *'\n    source: src\n    target: tgt\n    mapping: ${mapping}\n    priority: normal\n` +
      `    watermark: { type: number, field: ver }\n${filter}`;
    writeFileSync(path.join(dir, 'jobs.yaml'), `jobs:\n${job('vals', 'vals', 10)}${job('rounded', 'rounded', 20, '    filter: [{ field: id, op: eq, value: 5 }]\n')}`);
    host = await startLocalHost({
      configDir: dir,
      port: 0,
      log: silentLogger,
      settings: { ...readSettings({}), storageConnectionString: undefined, localTables: 'sqlite', dataDir: path.join(dir, '.data'), getChangesSchedule: '* * * * * *' },
    });
  }, 60_000);

  afterAll(async () => {
    await host?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies every value unchanged; the value a NUMERIC column would round is dead-lettered naming the column', async () => {
    const deadline = Date.now() + 45_000;
    const tgt = new Database(path.join(dir, 'tgt.db'), { readonly: true });
    try {
      const count = () => (tgt.prepare('SELECT count(*) AS n FROM vals').get() as { n: number }).n;
      while (count() < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      expect(await host?.drained({ timeoutMs: 30_000 })).toBe(true);
      const rows = tgt.prepare('SELECT CAST(id AS TEXT) AS id, typeof(i8) AS kind, CAST(i8 AS TEXT) AS i8, dec, typeof(bin) AS binkind, hex(bin) AS bin, ts, doc FROM vals ORDER BY vals.id').all();
      expect(rows).toEqual([
        { id: '-9223372036854775808', kind: 'integer', i8: '-9223372036854775808', dec: null, binkind: 'null', bin: '', ts: null, doc: null },
        { id: '5', kind: 'integer', i8: '5', dec: DECIMAL, binkind: 'null', bin: '', ts: null, doc: null },
        { id: '9007199254740993', kind: 'integer', i8: '9007199254740993', dec: null, binkind: 'null', bin: '', ts: null, doc: null },
        { id: '1234567890123456789', kind: 'integer', i8: '1234567890123456789', dec: DECIMAL, binkind: 'blob', bin: BYTES.toString('hex').toUpperCase(), ts: '2026-01-02 03:04:05.123456+02', doc: '{"a":[1,"x"]}' },
        { id: '9223372036854775807', kind: 'integer', i8: '9223372036854775807', dec: null, binkind: 'null', bin: '', ts: null, doc: null },
      ]);
      expect(tgt.prepare('SELECT count(*) AS n FROM rounded').get()).toEqual({ n: 0 });
    } finally {
      tgt.close();
    }
    const { bus, settings } = host!.runtime;
    const dead = await bus.peek(settings.queues.work.normal, { subQueue: 'deadLetter' });
    expect(dead.map((m) => [m.applicationProperties.JobName, m.deadLetterErrorDescription])).toEqual([
      ['rounded', expect.stringContaining(`column "dec" of "rounded": ${DECIMAL} cannot be stored exactly in a column of NUMERIC affinity`)],
    ]);
  }, 90_000);
});
