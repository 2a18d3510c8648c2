import { existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { MessageBus } from '../../../../src/bus/message-bus';
import { messageIdFor } from '../../../../src/bus/message-properties';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import type { ItemValues, SourceState } from './source-db';
import { JOBS } from './sync-config';
import { allQueueNames, type QueueNames } from '../../../../src/platform/queue-topology';

/** One record whose target state is not what the source says. */
interface Mismatch {
  job: string;
  key: string;
  kind: 'missing' | 'stale' | 'different' | 'resurrected';
  /**
   * parked: the final change is in a side queue (accounted for); overwritten: it was applied, then
   * replaced by an older change; out of order: a delete was delivered, but an older upsert of the
   * record was applied after it; never sent: detection missed it; lost in processing: sent, but
   * neither applied nor in a side queue.
   */
  cause: 'parked' | 'overwritten' | 'out of order' | 'never sent' | 'lost in processing';
  expected: unknown;
  actual: unknown;
}

export interface Verdict {
  rows: { categories: number; items: number; deleted: number };
  mismatches: Mismatch[];
  /** Final changes that reached neither the target nor a side queue. */
  lost: number;
  /** Changes applied to the target more than once (same record, same version). */
  duplicatesApplied: number;
  /** Work-queue sends of a message id already sent (crash reruns, lookback): dropped by duplicate detection. */
  resent: number;
  /** Messages now in each side queue / dead-letter subqueue (non-empty ones). */
  sideQueues: Record<string, number>;
}

const expectedCategory = (c: { name: string; modified_at: string }) => ({ title: c.name.trim(), modified_at: c.modified_at });

function expectedItem(item: ItemValues & { modified_at: string }) {
  const note = item.note === null || item.note.trim() === '' ? '-' : item.note.trim();
  return { category_id: item.category_id, title: item.name.toUpperCase(), quantity: item.qty, note, modified_at: item.modified_at };
}

const canonical = (at: string) => WatermarkValue.canonicalize('datetime', at);
/** A message's change tracker as the facts hold it: a time canonical, an outbox id as it is. */
const trackerText = (raw: string) => (/^\d+$/.test(raw) ? raw : canonical(raw));
const factKey = (job: string, key: string, tracker: string) => `${job}\u0000${key}\u0000${tracker}`;
/** The outbox aggregate type each job reads (sync-config.ts). */
const OUTBOX_TYPES: Record<string, string> = { [JOBS.categories]: 'categories', [JOBS.items]: 'items', [JOBS.deletedItems]: 'deleted_items' };

/** Every message in the side queues and every dead-letter subqueue, by job / source key / change tracker. */
async function sideQueueContents(bus: MessageBus, queues: QueueNames): Promise<{ facts: Set<string>; counts: Record<string, number> }> {
  const facts = new Set<string>();
  const counts: Record<string, number> = {};
  const sides = [...Object.values(queues.transitive), queues.ignored].map((q) => ({ queue: q, dead: false }));
  const dead = allQueueNames(queues).map((q) => ({ queue: q, dead: true }));
  for (const { queue, dead: isDead } of [...sides, ...dead]) {
    let from: string | undefined;
    for (;;) {
      const page = await bus.peek(queue, { maxMessages: 100, fromSequenceNumber: from, ...(isDead ? { subQueue: 'deadLetter' as const } : {}) });
      for (const m of page) {
        const p = m.applicationProperties;
        facts.add(factKey(String(p.JobName), String(p.SourceKey), trackerText(String(p.ChangeTracker))));
        const name = isDead ? `${queue}/$deadletterqueue` : queue;
        counts[name] = (counts[name] ?? 0) + 1;
      }
      if (page.length < 100) break;
      from = String(BigInt(page[page.length - 1].sequenceNumber) + 1n);
    }
  }
  return { facts, counts };
}

/** Message ids the bus accepted on work queues (from the hosts' send logs), with how often each was sent. */
function sentIds(sendLog: string, queues: QueueNames): Map<string, number> {
  const work = new Set(Object.values(queues.work));
  const sent = new Map<string, number>();
  if (!existsSync(sendLog)) return sent;
  for (const line of readFileSync(sendLog, 'utf8').split('\n')) {
    const [queue, id] = line.split('\t');
    if (id && work.has(queue)) sent.set(id, (sent.get(id) ?? 0) + 1);
  }
  return sent;
}

/** The target as the verdict reads it: its rows, and the log of every write its triggers kept. */
export interface TargetRows {
  categories: Array<{ id: string; title: unknown; modified_at: unknown }>;
  items: Array<{ item_id: string; category_id: unknown; title: unknown; quantity: unknown; note: unknown; modified_at: unknown }>;
  log: Array<{ tbl: string; key: string; version: string | null; op: string }>;
}

/** The SQLite target's rows (`createTargetDatabase`). */
export function readSqliteTarget(file: string): TargetRows {
  const target = new Database(file, { readonly: true });
  try {
    return {
      categories: target.prepare('SELECT id, title, modified_at FROM categories').all() as TargetRows['categories'],
      items: target.prepare('SELECT item_id, category_id, title, quantity, note, modified_at FROM items').all() as TargetRows['items'],
      log: target.prepare('SELECT tbl, key, version, op FROM apply_log').all() as TargetRows['log'],
    };
  } finally {
    target.close();
  }
}

/**
 * Compares the target with the source record by record (fields as mapped) and accounts for every
 * difference: a final change is either in the target, or in a side queue, or lost.
 */
export async function verifyConvergence(options: {
  source: SourceState;
  target: TargetRows;
  bus: MessageBus;
  queues: QueueNames;
  sendLog: string;
}): Promise<Verdict> {
  const { source, target } = options;
  const targetCategories = new Map(target.categories.map(({ id, ...rest }) => [id, rest]));
  const targetItems = new Map(target.items.map(({ item_id, ...rest }) => [item_id, rest]));
  const { log } = target;
  const upserted = new Set(log.filter((r) => r.op === 'upsert' && r.version !== null).map((r) => `${r.tbl}\u0000${r.key}\u0000${canonical(String(r.version))}`));
  const deleted = new Set(log.filter((r) => r.op === 'delete').map((r) => `${r.tbl}\u0000${r.key}`));
  // The same record written with the same version more than once.
  const writes = new Map<string, number>();
  for (const r of log) if (r.op === 'upsert') writes.set(`${r.tbl}\u0000${r.key}\u0000${r.version}`, (writes.get(`${r.tbl}\u0000${r.key}\u0000${r.version}`) ?? 0) + 1);
  const duplicates = [...writes.values()].reduce((sum, n) => sum + n - 1, 0);
  const side = await sideQueueContents(options.bus, options.queues);
  const sent = sentIds(options.sendLog, options.queues);

  const mismatches: Mismatch[] = [];
  // The final change's tracker: its time, or (read from an outbox) the newest outbox id of its record.
  const trackerOf = (job: string, key: string, at: string) => (source.outboxIds ? (source.outboxIds.get(`${OUTBOX_TYPES[job]}\u0000${key}`) ?? 'none') : canonical(at));
  const account = (m: Omit<Mismatch, 'cause'>, table: string, at: string, action: 'NewUpdate' | 'Delete') => {
    const tracker = trackerOf(m.job, m.key, at);
    const wasSent = sent.has(messageIdFor({ jobName: m.job, sourceKey: m.key, changeTracker: tracker, action }));
    let cause: Mismatch['cause'];
    if (side.facts.has(factKey(m.job, m.key, tracker))) cause = 'parked';
    else if (action === 'Delete') cause = wasSent ? (deleted.has(`${table}\u0000${m.key}`) ? 'overwritten' : 'out of order') : 'never sent';
    else if (upserted.has(`${table}\u0000${m.key}\u0000${canonical(at)}`)) cause = 'overwritten';
    else cause = wasSent ? 'lost in processing' : 'never sent';
    mismatches.push({ ...m, cause });
  };
  const compare = (job: string, table: string, key: string, expected: { modified_at: string }, actual: { modified_at?: unknown } | undefined) => {
    if (actual === undefined) return account({ job, key, kind: 'missing', expected, actual }, table, expected.modified_at, 'NewUpdate');
    if (JSON.stringify(actual) === JSON.stringify(expected)) return;
    const kind = actual.modified_at === expected.modified_at ? 'different' : 'stale';
    account({ job, key, kind, expected, actual }, table, expected.modified_at, 'NewUpdate');
  };
  for (const [id, c] of source.categories) compare(JOBS.categories, 'categories', id, expectedCategory(c), targetCategories.get(id) as { modified_at?: unknown } | undefined);
  for (const [id, item] of source.items) compare(JOBS.items, 'items', id, expectedItem(item), targetItems.get(id) as { modified_at?: unknown } | undefined);
  for (const [id, deletedAt] of source.tombstones) {
    const actual = targetItems.get(id);
    if (actual !== undefined) account({ job: JOBS.deletedItems, key: id, kind: 'resurrected', expected: undefined, actual }, 'items', deletedAt, 'Delete');
  }
  return {
    rows: { categories: source.categories.size, items: source.items.size, deleted: source.tombstones.size },
    mismatches,
    lost: mismatches.filter((m) => m.cause === 'never sent' || m.cause === 'lost in processing').length,
    duplicatesApplied: duplicates,
    resent: [...sent.values()].reduce((n, c) => n + c - 1, 0),
    sideQueues: side.counts,
  };
}
