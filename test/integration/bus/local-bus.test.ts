import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { LocalBus } from '../../../src/bus/local/local-bus';
import type { LocalBusOptions } from '../../../src/bus/local/options';

/** What the contract does not cover: persistence, declaration, several buses on one file, housekeeping. */
describe('LocalBus beyond the contract', () => {
  let dataDir: string;
  let now: number;
  const buses: LocalBus[] = [];
  const open = async (options: Partial<LocalBusOptions> = {}) => {
    const bus = await LocalBus.open({ dataDir, clock: { now: () => new Date(now) }, ...options });
    buses.push(bus);
    return bus;
  };
  const rows = (table: string) => {
    const db = new Database(path.join(dataDir, 'bus.sqlite'), { readonly: true });
    try {
      return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'highwater-bus-local-'));
    now = Date.parse('2026-03-01T00:00:00Z');
  });
  afterEach(async () => {
    for (const bus of buses.splice(0)) await bus.close();
    rmSync(`${dataDir}-link`, { force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps messages, locks and delivery counts across a reopen, and never reuses sequence numbers', async () => {
    const first = await open({ queues: ['q'] });
    await first.send('q', [{ body: 'a', messageId: 'a' }, { body: 'b', messageId: 'b' }]);
    const [a] = await first.receive('q');
    const [b] = await first.receive('q');
    await first.complete(b);
    await first.close();

    const second = await open();
    expect(await second.listQueues()).toEqual(['q']);
    expect(await second.receive('q')).toEqual([]);
    now += 60_001;
    const [again] = await second.receive('q');
    expect([again.messageId, again.deliveryCount, again.sequenceNumber]).toEqual(['a', 2, a.sequenceNumber]);
    await second.complete(again);
    await second.send('q', [{ body: 'c' }]);
    const [c] = await second.peek('q');
    expect(BigInt(c.sequenceNumber)).toBeGreaterThan(BigInt(b.sequenceNumber));
  });

  it('declares queues on open and by createQueue; a redeclaration changes only the options given', async () => {
    const bus = await open({ queues: ['b-queue', { name: 'a-queue', lockDurationMs: 5000, maxDeliveryCount: 2 }] });
    await bus.createQueue('a-queue', { lockDurationMs: 7000 });
    await bus.createQueue('c-queue');
    expect(await bus.listQueues()).toEqual(['a-queue', 'b-queue', 'c-queue']);
    await bus.send('a-queue', [{ body: 'x' }]);
    const [m] = await bus.receive('a-queue');
    expect(m.lockedUntil.getTime() - now).toBe(7000);
    await bus.abandon(m);
    await bus.abandon((await bus.receive('a-queue'))[0]);
    expect(await bus.counts('a-queue')).toEqual({ active: 0, scheduled: 0, deadLetter: 1 });
    const other = await open();
    expect(await other.listQueues()).toEqual(['a-queue', 'b-queue', 'c-queue']);
  });

  it('wakes a receiver waiting on another bus of this process at once, and polls for other processes', async () => {
    const receiver = await open({ queues: ['q'], pollIntervalMs: 10_000 });
    const sender = await open();
    let started = Date.now();
    const woken = receiver.receive('q', { maxWaitMs: 5000 });
    setTimeout(() => void sender.send('q', [{ body: 'in-process' }]), 100);
    expect((await woken).map((m) => Buffer.from(m.body).toString())).toEqual(['in-process']);
    expect(Date.now() - started).toBeLessThan(2000);

    // The same file through a symlinked folder: not this process's channel, found by polling.
    symlinkSync(dataDir, `${dataDir}-link`);
    const elsewhere = await open({ dataDir: `${dataDir}-link`, pollIntervalMs: 50 });
    started = Date.now();
    const polled = elsewhere.receive('q', { maxWaitMs: 5000 });
    setTimeout(() => void sender.send('q', [{ body: 'from afar' }]), 200);
    expect((await polled).map((m) => Buffer.from(m.body).toString())).toEqual(['from afar']);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('detects duplicates sent through different buses on the same file', async () => {
    const one = await open({ queues: ['q'] });
    const two = await open();
    await one.send('q', [{ body: 'first', messageId: 'same' }]);
    await two.send('q', [{ body: 'second', messageId: 'same' }, { body: 'other', messageId: 'other' }]);
    await one.send('q', [{ body: 'third', messageId: 'other' }]);
    expect((await one.peek('q')).map((m) => Buffer.from(m.body).toString())).toEqual(['first', 'other']);
  });

  it('drops expired messages when dead-lettering on expiration is off, and keeps duplicates when detection is off', async () => {
    const bus = await open({
      queues: [
        { name: 'volatile', deadLetteringOnMessageExpiration: false },
        { name: 'nodedup', requiresDuplicateDetection: false },
      ],
    });
    await bus.send('volatile', [{ body: 'short', timeToLiveMs: 1000 }]);
    await bus.send('nodedup', [{ body: '1', messageId: 'x' }, { body: '2', messageId: 'x' }]);
    now += 1001;
    expect(await bus.counts('volatile')).toEqual({ active: 0, scheduled: 0, deadLetter: 0 });
    expect((await bus.counts('nodedup')).active).toBe(2);
  });

  it('deletes the contents of completed messages in bulk and purges duplicate ids after their window', async () => {
    const bus = await open({ queues: [{ name: 'q', duplicateDetectionWindowMs: 1000 }] });
    await bus.send('q', Array.from({ length: 1200 }, (_, i) => ({ body: `m${i}`, messageId: `id-${i}` })));
    for (let left = 1200; left > 0; ) {
      const got = await bus.receive('q', { maxMessages: 100 });
      await Promise.all(got.map((m) => bus.complete(m)));
      left -= got.length;
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(rows('messages')).toBe(0);
    expect(rows('contents')).toBe(200);
    expect(rows('duplicate_log')).toBe(1200);
    now += 61_000;
    await bus.send('q', [{ body: 'later', messageId: 'id-0' }]);
    expect(rows('duplicate_log')).toBe(1);
    await bus.close();
    expect(rows('contents')).toBe(1);
  });
});
