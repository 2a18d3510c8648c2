import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { textColumns } from '../detect/workload';
import { generateUuidSource, SOURCE_TABLE } from './workload';

/**
 * The latency workload: a small job whose source gets one change at a time, and optionally a
 * flood job of the same priority with a first load of `floodRows`. Both SQLite, one SQLite
 * target. The target stamps every row it is given (`applied_at`, its own clock in ms) and logs
 * the order rows were applied in (`applied_log`), by triggers, so latency and "what was applied
 * before what" are read afterwards from the target itself, not from polling.
 *
 * The small job's watermark is a counter (`version`, type `number`): a SQLite counter is settled
 * at once, while a `datetime` stamp waits for its second to be over plus the settle margin (1 s):
 * that would add 1–2 s to every figure here, the same with or without a flood.
 */

export const FLOOD_JOB = 'a-flood';
export const SMALL_JOB = 'b-small';
export const FLOOD_TABLE = 'customers';
export const SMALL_SOURCE_TABLE = 'notes';
export const SMALL_TABLE = 'notes_copy';

const NOW_MS = `CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)`;

/** Every second, or (push) once at the start and then on 1 January: changes arrive by push only. */
const SCHEDULE_EVERY_SECOND = '* * * * * *';
const SCHEDULE_ONCE = '0 0 0 1 1 *';

/** The app setting holding the small job's shared secret in push mode. */
export const SMALL_PUSH_SECRET_SETTING = 'BENCH_PUSH_SECRET';

/** How the small job's changes reach Highwater: read by its poll every second, or pushed to `POST /api/hooks/b-small`. */
export type LatencyMode = 'poll' | 'push';

/**
 * `source.db` with the flood (none when `floodRows` is 0), `small.db`, an empty `target.db`, the
 * config. `floodSchedule`: the flood job's; default due once (never run), then on 1 January.
 */
export function prepareLatencyFolder(dir: string, floodRows: number, rowBytes = 1024, floodSchedule = SCHEDULE_ONCE): void {
  if (floodRows > 0) generateUuidSource(dir, floodRows, rowBytes);
  const small = new Database(path.join(dir, 'small.db'));
  try {
    small.pragma('journal_mode = WAL');
    small.exec(`DROP TABLE IF EXISTS ${SMALL_SOURCE_TABLE}; CREATE TABLE ${SMALL_SOURCE_TABLE} (id TEXT PRIMARY KEY, version INTEGER NOT NULL, written_at INTEGER NOT NULL)`);
    small.exec(`CREATE INDEX ${SMALL_SOURCE_TABLE}_changes ON ${SMALL_SOURCE_TABLE} (version, id)`);
  } finally {
    small.close();
  }
  createLatencyTarget(dir);
  writeLatencyConfig(dir, floodRows > 0, floodSchedule);
}

/** A fresh `target.db`: the flood's table, the small job's table, the log of what was applied when. */
export function createLatencyTarget(dir: string): void {
  const file = path.join(dir, 'target.db');
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE ${FLOOD_TABLE} (crm_id TEXT PRIMARY KEY, modified_at TEXT, ${textColumns().map((c) => `field_${c} TEXT`).join(', ')})`);
    db.exec(`CREATE TABLE ${SMALL_TABLE} (id TEXT PRIMARY KEY, version INTEGER, written_at INTEGER, applied_at INTEGER)`);
    db.exec(`CREATE TABLE applied_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL, id TEXT NOT NULL, at INTEGER NOT NULL)`);
    for (const [table, key] of [[FLOOD_TABLE, 'crm_id'], [SMALL_TABLE, 'id']]) {
      const stamp = table === SMALL_TABLE ? `UPDATE ${SMALL_TABLE} SET applied_at = ${NOW_MS} WHERE id = NEW.id;` : '';
      // The stamp's own UPDATE sets applied_at only, so it does not fire the update trigger again.
      for (const event of ['INSERT', table === SMALL_TABLE ? 'UPDATE OF version, written_at' : 'UPDATE']) {
        db.exec(`CREATE TRIGGER ${table}_${event.split(' ')[0].toLowerCase()} AFTER ${event} ON ${table} WHEN NEW.${key} IS NOT NULL BEGIN
          INSERT INTO applied_log (tbl, id, at) VALUES ('${table}', NEW.${key}, ${NOW_MS}); ${stamp} END`);
      }
    }
  } finally {
    db.close();
  }
}

/**
 * The three config files. `mode` push: the small job takes generic notifications signed with
 * {@link SMALL_PUSH_SECRET_SETTING}, with `skipOutdatedMessages` (required with push; the target's
 * `version` is compared), and its poll runs once only, so every change it gets was pushed.
 */
export function writeLatencyConfig(dir: string, flood: boolean, floodSchedule: string = SCHEDULE_ONCE, mode: LatencyMode = 'poll'): void {
  const push = mode === 'push';
  const connections = [
    { name: 'small', type: 'sqlite', settings: { file: './small.db' } },
    { name: 'target', type: 'sqlite', settings: { file: './target.db', groupCommit: true } },
    ...(flood ? [{ name: 'source', type: 'sqlite', settings: { file: './source.db' } }] : []),
  ];
  const mappings = [
    {
      name: 'notes',
      source: { entity: SMALL_SOURCE_TABLE, key: ['id'] },
      target: { entity: SMALL_TABLE, key: ['id'], ...(push ? { versionField: 'version' } : {}) },
      fields: [{ target: 'id', source: 'id' }, { target: 'version', source: 'version' }, { target: 'written_at', source: 'written_at' }],
    },
    ...(flood ? [{
      name: 'accounts',
      source: { entity: SOURCE_TABLE, key: ['id'] },
      target: { entity: FLOOD_TABLE, key: ['crm_id'] },
      fields: [{ target: 'crm_id', source: 'id' }, { target: 'modified_at', source: 'modified_at' }, ...textColumns().map((c) => ({ target: `field_${c}`, source: c }))],
    }] : []),
  ];
  const pushed = push ? { push: { format: 'generic', secret: SMALL_PUSH_SECRET_SETTING }, skipOutdatedMessages: true } : {};
  const jobs = [
    { name: SMALL_JOB, order: 2, schedule: push ? SCHEDULE_ONCE : SCHEDULE_EVERY_SECOND, source: 'small', target: 'target', mapping: 'notes', priority: 'normal', watermark: { type: 'number', field: 'version' }, ...pushed },
    ...(flood ? [{ name: FLOOD_JOB, order: 1, schedule: floodSchedule, source: 'source', target: 'target', mapping: 'accounts', priority: 'normal', pageSize: 500, watermark: { type: 'datetime', field: 'modified_at' } }] : []),
  ];
  for (const [kind, value] of Object.entries({ connections, mappings, jobs })) fs.writeFileSync(path.join(dir, `${kind}.yaml`), stringify({ [kind]: value }));
}

/** Writes one change of the small source (a new row, the next version) stamped with this process's clock; returns its id. */
export function writeSmallChange(db: Database.Database, n: number): string {
  const id = `note-${n}`;
  db.prepare(`INSERT INTO ${SMALL_SOURCE_TABLE} (id, version, written_at) VALUES (?, ?, ?)`).run(id, n, Date.now());
  return id;
}

/** What the target says once everything was applied. */
export interface LatencyReading {
  /** ms from written at the source to applied at the target, per small change, in write order. */
  latenciesMs: number[];
  /** Per small change: flood rows applied after it (still waiting when it was applied). */
  floodAfter: number[];
  /** Flood rows applied, and the first and last time (ms) one was. */
  flood: { rows: number; firstAt?: number; lastAt?: number };
}

export function readLatencies(dir: string): LatencyReading {
  const db = new Database(path.join(dir, 'target.db'), { readonly: true });
  try {
    const small = db.prepare(`SELECT id, written_at, applied_at FROM ${SMALL_TABLE} ORDER BY version`).all() as Array<{ id: string; written_at: number; applied_at: number }>;
    const floodRows = db.prepare(`SELECT count(*) AS n, min(at) AS firstAt, max(at) AS lastAt FROM applied_log WHERE tbl = ?`).get(FLOOD_TABLE) as { n: number; firstAt: number | null; lastAt: number | null };
    const after = db.prepare(`SELECT count(*) AS n FROM applied_log WHERE tbl = ? AND seq > (SELECT min(seq) FROM applied_log WHERE tbl = ? AND id = ?)`);
    return {
      latenciesMs: small.map((r) => r.applied_at - r.written_at),
      floodAfter: small.map((r) => (after.get(FLOOD_TABLE, SMALL_TABLE, r.id) as { n: number }).n),
      flood: { rows: floodRows.n, ...(floodRows.firstAt !== null ? { firstAt: floodRows.firstAt, lastAt: floodRows.lastAt ?? undefined } : {}) },
    };
  } finally {
    db.close();
  }
}

/** The p-th percentile (nearest rank) of `values`. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
