import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import type { ProcessingMode } from '../../src/host/processing-mode';
import { textColumns } from '../detect/workload';

/**
 * The end-to-end benchmark's data: a SQLite source table of ~`rowBytes`-byte rows with random
 * UUID keys (inserts into the target land all over its primary-key B-tree, as with real keys), a
 * change timestamp shared by groups of 4 rows and 8 text columns; an empty SQLite target; the
 * config of one job that syncs them; what a child measures and how it reports.
 */

export const SOURCE_TABLE = 'accounts';
export const TARGET_TABLE = 'customers';
export const JOB = 'bench-e2e';
const BASE_TIME = Date.parse('2026-01-01T00:00:00.000Z');

/** What the parent asks one child process to measure. */
export interface E2eTask {
  /** `direct`: the physical limit, a copy in one process (keyset-paged read, 1,000-row upsert
   * transactions); `e2e`: the local host's real services, source → local bus → target. */
  stage: 'direct' | 'e2e';
  rows: number;
  /** Folder with the config, `source.db` and a fresh `target.db`. */
  configDir: string;
  /** Folder for the local bus (e2e). */
  dataDir: string;
  storageConnectionString: string;
  /** e2e: processors on `sbqnormal`; default the host's own. */
  concurrency?: number;
  /** e2e: where the host runs its processors; default the host's own (`HIGHWATER_LOCAL_PROCESSING`, else its default). */
  processing?: ProcessingMode;
}

export interface E2eResult {
  stage: E2eTask['stage'];
  rows: number;
  /** e2e: where the processors ran. */
  processing?: ProcessingMode;
  seconds: number;
  /** Rows per second from start to every row in the target. */
  rowsPerSecond: number;
  /** e2e: changes/s of the detection run (read, serialize, send, watermark). */
  detectionPerSecond?: number;
  /** e2e: messages/s applied, from the first to the last one. */
  processingPerSecond?: number;
  /** RSS when everything was opened (e2e: the host started), just before the measured run. */
  startRssMb: number;
  peakRssMb: number;
  /** Largest JS heap in use seen (sampled every 100 ms): tells heap growth from native memory. */
  peakHeapMb: number;
  endHeapMb: number;
  /** e2e: CPU time of the whole process (every thread) ÷ wall time, over the measured run. */
  cpuCores?: number;
  /** e2e: the main thread's CPU time ÷ wall time, % (Linux: /proc; absent elsewhere). */
  mainThreadBusy?: number;
}

/** A UUID-formatted key from a counter (sha256): random-looking, reproducible. */
export function uuidKey(i: number): string {
  const h = createHash('sha256').update(`row-${i}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Writes `rows` rows into `<dir>/source.db` in one transaction, then the change index. */
export function generateUuidSource(dir: string, rows: number, rowBytes: number): void {
  const file = path.join(dir, 'source.db');
  fs.rmSync(file, { force: true });
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    const columns = textColumns();
    db.exec(`CREATE TABLE ${SOURCE_TABLE} (id TEXT PRIMARY KEY, modified_at TEXT NOT NULL, ${columns.map((c) => `${c} TEXT`).join(', ')})`);
    // id (36) + timestamp (24) + the text columns make up the row.
    const width = Math.max(1, Math.floor((rowBytes - 60) / columns.length));
    const pool = 'abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789 '.repeat(Math.ceil((width + 64) / 64) + 1);
    const insert = db.prepare(`INSERT INTO ${SOURCE_TABLE} VALUES (${['?', '?', ...columns.map(() => '?')].join(', ')})`);
    db.transaction(() => {
      for (let i = 0; i < rows; i++) {
        const values = [uuidKey(i), new Date(BASE_TIME + Math.floor(i / 4)).toISOString()];
        for (let c = 0; c < columns.length; c++) {
          const offset = (i * 7 + c * 13) % 64;
          values.push(pool.slice(offset, offset + width));
        }
        insert.run(...values);
      }
    })();
    db.exec(`CREATE INDEX ${SOURCE_TABLE}_changes ON ${SOURCE_TABLE} (modified_at, id)`);
  } finally {
    db.close();
  }
}

/** Target columns: the key, the timestamp and one per text column. */
export function targetColumns(): string[] {
  return ['crm_id', 'modified_at', ...textColumns().map((c) => `field_${c}`)];
}

/** Creates an empty `<dir>/target.db` (WAL, like the source), replacing an old one. */
export function createTarget(dir: string): void {
  const file = path.join(dir, 'target.db');
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    const [key, ...rest] = targetColumns();
    db.exec(`CREATE TABLE ${TARGET_TABLE} (${key} TEXT PRIMARY KEY, ${rest.map((c) => `${c} TEXT`).join(', ')})`);
  } finally {
    db.close();
  }
}

/** The job's mapping of one source row, as the direct copy applies it (`trim` on c1, `upper` on c2). */
export function mapRow(row: Record<string, string>): string[] {
  return [row.id, row.modified_at, ...textColumns().map((c, i) => (i === 0 ? row[c].trim() : i === 1 ? row[c].toUpperCase() : row[c]))];
}

/** Connections `source` and `target`, the mapping (same fields as {@link mapRow}) and the job. */
export function writeE2eConfig(dir: string): void {
  const columns = textColumns();
  const config = {
    connections: [
      { name: 'source', type: 'sqlite', settings: { file: './source.db' } },
      { name: 'target', type: 'sqlite', settings: { file: './target.db', groupCommit: true } },
    ],
    mappings: [
      {
        name: 'accounts',
        source: { entity: SOURCE_TABLE, key: ['id'] },
        target: { entity: TARGET_TABLE, key: ['crm_id'] },
        fields: [
          { target: 'crm_id', source: 'id' },
          { target: 'modified_at', source: 'modified_at' },
          ...columns.map((c, i) => ({ target: `field_${c}`, source: c, ...(i === 0 ? { operations: [{ op: 'trim' }] } : i === 1 ? { operations: [{ op: 'upper' }] } : {}) })),
        ],
      },
    ],
    jobs: [
      { name: JOB, schedule: '0 0 0 1 1 *', source: 'source', target: 'target', mapping: 'accounts', priority: 'normal', pageSize: 500, watermark: { type: 'datetime', field: 'modified_at' } },
    ],
  };
  for (const kind of ['connections', 'mappings', 'jobs'] as const) {
    fs.writeFileSync(path.join(dir, `${kind}.yaml`), stringify({ [kind]: config[kind] }));
  }
}
