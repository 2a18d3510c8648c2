import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';

/**
 * The detection benchmark's source: one SQLite table of ~`rowBytes`-byte rows (an id, a change
 * timestamp shared by groups of 4 rows, 8 text columns), the config that detects it, and how
 * child processes report.
 */

export const TABLE = 'accounts';
export const JOB = 'bench-accounts';
const TEXT_COLUMNS = 8;
/** Rows sharing one timestamp: keyset paging must continue inside such groups by key. */
const ROWS_PER_TIMESTAMP = 4;
const BASE_TIME = Date.parse('2026-01-01T00:00:00.000Z');

/** What the parent asks one child process to measure. */
export interface BenchTask {
  /** `keyset`: raw keyset-paged SELECTs (better-sqlite3, no mapping); `source`: the SQL source
   * connector (read + serialize to queue messages, nothing sent); `runtime`: the real detection
   * path (`runJob`: source → serialize → ServiceBusService → local bus, watermark to Azurite). */
  stage: 'keyset' | 'source' | 'runtime';
  rows: number;
  pageSize: number;
  /** Folder with the config files and `source.db`. */
  configDir: string;
  /** Folder for the local bus (runtime stage). */
  dataDir: string;
  storageConnectionString: string;
}

export interface BenchResult {
  stage: BenchTask['stage'];
  rows: number;
  seconds: number;
  changesPerSecond: number;
  /** RSS when everything was opened, just before the measured loop. */
  startRssMb: number;
  peakRssMb: number;
  /** JS heap in use at the end (no forced GC): tells heap growth from native memory. */
  endHeapMb: number;
}

/** A child prints exactly one line starting with this, followed by JSON. */
export const RESULT_PREFIX = 'BENCH_RESULT ';

export function peakRssMb(): number {
  return Math.round((process.resourceUsage().maxRSS / 1024) * 10) / 10;
}

export function heapMb(): number {
  return Math.round((process.memoryUsage().heapUsed / 1024 / 1024) * 10) / 10;
}

export function rssMb(): number {
  return Math.round((process.memoryUsage.rss() / 1024 / 1024) * 10) / 10;
}

export function textColumns(): string[] {
  return Array.from({ length: TEXT_COLUMNS }, (_, i) => `c${i + 1}`);
}

/** Writes `rows` rows into `<dir>/source.db` in one transaction with one prepared statement. */
export function generateSource(dir: string, rows: number, rowBytes: number): string {
  const file = path.join(dir, 'source.db');
  fs.rmSync(file, { force: true });
  const db = new Database(file);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    const columns = textColumns();
    db.exec(`CREATE TABLE ${TABLE} (id TEXT PRIMARY KEY, modified_at TEXT NOT NULL, ${columns.map((c) => `${c} TEXT`).join(', ')})`);
    // id (9) + timestamp (24) + the text columns make up the row.
    const width = Math.max(1, Math.floor((rowBytes - 33) / columns.length));
    const pool = 'abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789 '.repeat(Math.ceil((width + 64) / 64) + 1);
    const insert = db.prepare(`INSERT INTO ${TABLE} VALUES (${['?', '?', ...columns.map(() => '?')].join(', ')})`);
    db.transaction(() => {
      for (let i = 0; i < rows; i++) {
        const values: string[] = [`R-${String(i).padStart(7, '0')}`, new Date(BASE_TIME + Math.floor(i / ROWS_PER_TIMESTAMP)).toISOString()];
        for (let c = 0; c < columns.length; c++) {
          const offset = (i * 7 + c * 13) % 64;
          values.push(pool.slice(offset, offset + width));
        }
        insert.run(...values);
      }
    })();
    // The index a real source needs for `(modified_at, id) > (?, ?) ORDER BY modified_at, id`.
    db.exec(`CREATE INDEX ${TABLE}_changes ON ${TABLE} (modified_at, id)`);
  } finally {
    db.close();
  }
  return file;
}

/** The config folder: connection `source`, a mapping of every column, the job. */
export function writeBenchConfig(dir: string, pageSize: number): void {
  const columns = textColumns();
  const config = {
    connections: [{ name: 'source', type: 'sqlite', settings: { file: './source.db' } }],
    mappings: [
      {
        name: 'accounts',
        source: { entity: TABLE, key: ['id'] },
        target: { entity: 'customers', key: ['crm_id'] },
        fields: [
          { target: 'crm_id', source: 'id' },
          { target: 'modified_at', source: 'modified_at' },
          ...columns.map((c, i) => ({ target: `field_${c}`, source: c, ...(i === 0 ? { operations: [{ op: 'trim' }] } : i === 1 ? { operations: [{ op: 'upper' }] } : {}) })),
        ],
      },
    ],
    jobs: [
      {
        name: JOB,
        schedule: '0 */5 * * * *',
        source: 'source',
        target: 'source',
        mapping: 'accounts',
        priority: 'normal',
        pageSize,
        watermark: { type: 'datetime', field: 'modified_at' },
      },
    ],
  };
  for (const kind of ['connections', 'mappings', 'jobs'] as const) {
    fs.writeFileSync(path.join(dir, `${kind}.yaml`), stringify({ [kind]: config[kind] }));
  }
}
