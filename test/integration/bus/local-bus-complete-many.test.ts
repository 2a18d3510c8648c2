import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { LocalBus } from '../../../src/bus/local/local-bus';

/** `completeMany` on the local bus beyond the contract: one transaction, and contents housekeeping. */
describe('LocalBus.completeMany', () => {
  let dataDir: string;
  let file: string;
  let now: number;
  let bus: LocalBus | undefined;
  const open = async (options: Partial<Parameters<typeof LocalBus.open>[0]> = {}) =>
    (bus = await LocalBus.open({ dataDir, queues: ['q'], clock: { now: () => new Date(now) }, ...options }));
  const rows = (table: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'highwater-bus-many-'));
    file = path.join(dataDir, 'bus.sqlite');
    now = Date.parse('2026-03-01T00:00:00Z');
  });
  afterEach(async () => {
    await bus?.close();
    bus = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is all or nothing: when the file stays locked by another process it throws Unavailable and completes none', async () => {
    const b = await open({ busyTimeoutMs: 100 });
    await b.send('q', Array.from({ length: 5 }, (_, i) => ({ body: `m${i}` })));
    const received = await b.receive('q', { maxMessages: 5 });
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    try {
      await expect(b.completeMany(received)).rejects.toMatchObject({ name: 'BusError', code: 'Unavailable' });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(rows('messages')).toBe(5);
    // The locks survived the failed call: a retry completes every message.
    expect(await b.completeMany(received)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(rows('messages')).toBe(0);
  });

  it('deletes contents in bulk as single completions do: after every 1000, the rest on close', async () => {
    const b = await open();
    await b.send('q', Array.from({ length: 1200 }, (_, i) => ({ body: `m${i}` })));
    for (let left = 1200; left > 0; ) {
      const got = await b.receive('q', { maxMessages: 300 });
      expect(await b.completeMany(got)).toEqual(new Array(got.length).fill(undefined));
      left -= got.length;
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(rows('messages')).toBe(0);
    expect(rows('contents')).toBe(200);
    await b.close();
    bus = undefined;
    expect(rows('contents')).toBe(0);
  });

  it('refuses a non-array and any call after close with InvalidArgument', async () => {
    const b = await open();
    await expect(b.completeMany('nope' as unknown as [])).rejects.toMatchObject({ code: 'InvalidArgument', message: 'messages must be an array' });
    await b.close();
    await expect(b.completeMany([])).rejects.toMatchObject({ code: 'InvalidArgument', message: `The local bus ${file} is closed` });
  });
});
