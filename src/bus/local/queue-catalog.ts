import { performance } from 'node:perf_hooks';
import type Database from 'better-sqlite3';
import { BusError } from '../message-bus';
import { DEFAULT_QUEUE_OPTIONS, type QueueOptions, type ResolvedQueueOptions } from './options';

export interface QueueInfo {
  id: number;
  name: string;
  options: ResolvedQueueOptions;
}

interface QueueRow {
  id: number;
  name: string;
  options: string;
}

/** How long a cached queue is trusted before checking whether another process committed. */
const RECHECK_AFTER_MS = 1000;

/**
 * The declared queues, stored in the database so that every process on the file (the host,
 * the dead-letter mover) knows them. Cached per process: the cache is dropped when another
 * connection has committed since the last check (`PRAGMA data_version` moved); the check runs at
 * most once a second (real time), so options changed elsewhere are seen within a second. An
 * unknown name is always looked up, so a queue another process just declared is found at once.
 */
export class QueueCatalog {
  private readonly cache = new Map<string, QueueInfo>();
  private dataVersion = -1;
  private checkedAt = -Infinity;
  private readonly selectOne: Database.Statement<[string], QueueRow>;
  private readonly selectAll: Database.Statement<[], { name: string }>;
  private readonly upsert: Database.Statement<[string, string]>;
  private readonly dataVersionOf: Database.Statement<[], number>;

  constructor(
    db: Database.Database,
    private readonly file: string,
  ) {
    this.selectOne = db.prepare('SELECT id, name, options FROM queues WHERE name = ?');
    this.selectAll = db.prepare('SELECT name FROM queues ORDER BY name');
    this.dataVersionOf = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.upsert = db.prepare(
      'INSERT INTO queues (name, options) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET options = excluded.options',
    );
  }

  /** Creates the queue or overwrites the given options; call inside a write transaction. */
  declare(name: string, options: QueueOptions): QueueInfo {
    const stored = this.read(name);
    const merged: ResolvedQueueOptions = { ...DEFAULT_QUEUE_OPTIONS, ...stored?.options, ...options };
    if (!stored || JSON.stringify(merged) !== JSON.stringify(stored.options)) {
      this.upsert.run(name, JSON.stringify(merged));
    }
    this.cache.delete(name);
    return this.require(name);
  }

  /** The queue, or undefined when nobody declared it. */
  find(name: string): QueueInfo | undefined {
    const t = performance.now();
    if (t - this.checkedAt >= RECHECK_AFTER_MS) {
      this.checkedAt = t;
      const version = this.dataVersionOf.get() ?? 0;
      if (version !== this.dataVersion) this.cache.clear();
      this.dataVersion = version;
    }
    let info = this.cache.get(name);
    if (!info) {
      info = this.read(name);
      if (info) this.cache.set(name, info);
    }
    return info;
  }

  /** @throws BusError `QueueNotFound`. */
  require(name: string): QueueInfo {
    const info = this.find(name);
    if (!info) {
      throw new BusError('QueueNotFound', `Queue "${name}" is not declared in the local bus ${this.file}`);
    }
    return info;
  }

  names(): string[] {
    return this.selectAll.all().map((row) => row.name);
  }

  private read(name: string): QueueInfo | undefined {
    const row = this.selectOne.get(name);
    if (!row) return undefined;
    const options = { ...DEFAULT_QUEUE_OPTIONS, ...(JSON.parse(row.options) as QueueOptions) };
    return { id: row.id, name: row.name, options };
  }
}
