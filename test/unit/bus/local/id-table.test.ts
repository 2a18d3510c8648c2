import { hashId, IdTable } from '../../../../src/bus/local/id-table';

/** A stand-in for `duplicate_log`: row id → (queue id, message id, end of window). */
function makeLog() {
  const rows = new Map<number, { queueId: number; messageId: string; until: number }>();
  let reads = 0;
  return {
    rows,
    get reads() {
      return reads;
    },
    check: (logId: number, queueId: number, messageId: string, now: number) => {
      reads++;
      const row = rows.get(logId);
      return row !== undefined && row.queueId === queueId && row.messageId === messageId && row.until > now;
    },
  };
}

describe('IdTable', () => {
  it('finds every stored id within its window, per queue, and no other', () => {
    const log = makeLog();
    const table = new IdTable(log.check);
    for (let i = 0; i < 5000; i++) {
      log.rows.set(i + 1, { queueId: 1 + (i % 2), messageId: `id-${i}`, until: 1000 + i });
      table.add(1 + (i % 2), `id-${i}`, i + 1);
    }
    expect(table.size).toBe(5000);
    expect([0, 1, 4999].map((i) => table.has(1 + (i % 2), `id-${i}`, 999))).toEqual([true, true, true]);
    expect(table.has(2, 'id-0', 999)).toBe(false);
    expect(table.has(1, 'id-5000', 999)).toBe(false);
    expect(table.has(1, 'id-0', 1000)).toBe(false);
    expect(table.has(1, 'id-4000', 1000)).toBe(true);
    // Hashes are 32 bits: a found id is read back once, a missing one almost never.
    expect(log.reads).toBeLessThan(10);
  });

  it('tells ids apart whose hashes collide, by reading their log rows', () => {
    const log = makeLog();
    const table = new IdTable(log.check, () => 42);
    for (let i = 1; i <= 50; i++) {
      log.rows.set(i, { queueId: 1, messageId: `m${i}`, until: 100 });
      table.add(1, `m${i}`, i);
    }
    expect(table.has(1, 'm50', 0)).toBe(true);
    expect(table.has(1, 'm51', 0)).toBe(false);
    expect(table.has(2, 'm1', 0)).toBe(false);
    // A row gone from the log (purged by another process) no longer counts.
    log.rows.delete(7);
    expect(table.has(1, 'm7', 0)).toBe(false);
  });

  it('keeps a later window of the same id next to the expired one, and prune drops the older rows', () => {
    const log = makeLog();
    const table = new IdTable(log.check);
    log.rows.set(1, { queueId: 1, messageId: 'x', until: 100 });
    table.add(1, 'x', 1);
    expect(table.has(1, 'x', 150)).toBe(false);
    log.rows.set(2, { queueId: 1, messageId: 'x', until: 300 });
    table.add(1, 'x', 2);
    expect(table.has(1, 'x', 150)).toBe(true);
    table.prune(2);
    expect(table.size).toBe(1);
    expect(table.has(1, 'x', 299)).toBe(true);
  });

  it('grows with the ids in the window and shrinks back when they expire', () => {
    const log = makeLog();
    const table = new IdTable(log.check);
    const empty = table.bytes;
    for (let i = 1; i <= 100_000; i++) {
      log.rows.set(i, { queueId: 1, messageId: String(i), until: i <= 99_000 ? 10 : 20 });
      table.add(1, String(i), i);
    }
    expect(table.bytes / 100_000).toBeLessThanOrEqual(8 / 0.35);
    table.prune(99_001);
    expect(table.size).toBe(1000);
    expect(table.bytes).toBeLessThanOrEqual(empty * 4);
    expect(table.has(1, '99001', 10)).toBe(true);
    expect(table.has(1, '1', 0)).toBe(false);
  });

  it('grows one segment at a time, so that old and new slots overlap by a sliver of the table', () => {
    const table = new IdTable(() => false);
    let largestStep = 0;
    for (let i = 1; i <= 200_000; i++) {
      const before = table.bytes;
      table.add(1, String(i), i);
      largestStep = Math.max(largestStep, table.bytes - before);
    }
    expect(table.size).toBe(200_000);
    // A table growing as one would add half its size in one step (a third of the end size).
    expect(largestStep).toBeLessThan(table.bytes / 10);
  });

  it('keeps finding ids when log ids arrive below the base or far above it', () => {
    const log = makeLog();
    const table = new IdTable(log.check);
    for (const id of [1_000, 10, 1_000 + 0xffff_ffff]) {
      log.rows.set(id, { queueId: 1, messageId: `m${id}`, until: 100 });
      table.add(1, `m${id}`, id);
    }
    // 10 moved the base down; an id more than 2^32 rows above the oldest drops the ancient ones.
    expect(table.has(1, `m${1_000 + 0xffff_ffff}`, 0)).toBe(true);
    expect(table.has(1, 'm10', 0)).toBe(false);
    expect(table.size).toBe(2);
  });

  it('hashes the queue id and every code unit', () => {
    const hashes = new Set([hashId(1, 'abc'), hashId(2, 'abc'), hashId(1, 'abd'), hashId(1, 'ab'), hashId(1, 'äbc')]);
    expect(hashes.size).toBe(5);
    expect(hashId(1, 'abc')).toBe(hashId(1, 'abc'));
  });
});
