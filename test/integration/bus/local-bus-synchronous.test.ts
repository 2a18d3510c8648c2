import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { LocalBus } from '../../../src/bus/local/local-bus';
import type { LocalBusOptions } from '../../../src/bus/local/options';
import { BusError } from '../../../src/bus/message-bus';

interface Round {
  file: string;
  withDirectory: boolean;
  /** Messages committed when the round started. */
  committedAtStart: number;
  finish: (error?: Error) => void;
}

/** Whether a promise has settled yet (without awaiting it). */
function track(promise: Promise<unknown>) {
  const state = { settled: false };
  promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}

/** A few event-loop turns: enough for a queued transaction to commit and its promises to settle. */
async function turns(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** `synchronous: 'FULL'`: the connection commits with NORMAL and the calls that need it wait for a WAL sync. */
describe('LocalBus synchronous FULL (WAL synced off the event loop)', () => {
  let dataDir: string;
  let file: string;
  let now: number;
  const buses: LocalBus[] = [];
  const open = async (options: Partial<LocalBusOptions> = {}) => {
    const bus = await LocalBus.open({ dataDir, queues: ['q'], clock: { now: () => new Date(now) }, ...options });
    buses.push(bus);
    return bus;
  };
  /** Every round of every syncer, finished after each test so that no close waits for one. */
  const allRounds: Round[] = [];
  /** A syncer whose rounds the test finishes by hand. */
  const manualSyncer = () => {
    const rounds: Round[] = [];
    const syncFile = (f: string, withDirectory: boolean) =>
      new Promise<void>((resolve, reject) => {
        const round = { file: f, withDirectory, committedAtStart: committed(), finish: (error?: Error) => (error ? reject(error) : resolve()) };
        rounds.push(round);
        allRounds.push(round);
      });
    return { rounds, syncFile };
  };
  /** Messages committed, as another connection sees them. */
  const committed = () => {
    const db = new Database(file, { readonly: true });
    try {
      return (db.prepare('SELECT count(*) AS n FROM messages').get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'highwater-bus-synchronous-'));
    file = path.join(dataDir, 'bus.sqlite');
    now = Date.parse('2026-03-01T00:00:00Z');
  });
  afterEach(async () => {
    for (const round of allRounds.splice(0)) round.finish();
    for (const bus of buses.splice(0)) await bus.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('resolves a send only after a WAL sync that started after its COMMIT', async () => {
    const { rounds, syncFile } = manualSyncer();
    const bus = await open({ synchronous: 'FULL', syncFile });
    const first = track(bus.send('q', [{ body: 'a' }]));
    await turns();
    expect(rounds.map((r) => [r.file, r.withDirectory, r.committedAtStart])).toEqual([[`${file}-wal`, true, 1]]);
    expect(first.settled).toBe(false);
    // Committed while round 1 runs: round 1 may not hold it, so it waits for round 2.
    const second = track(bus.send('q', [{ body: 'b' }]));
    await turns();
    expect(committed()).toBe(2);
    expect(rounds).toHaveLength(1);
    rounds[0].finish();
    await turns();
    expect([first.settled, second.settled]).toEqual([true, false]);
    expect(rounds.map((r) => [r.withDirectory, r.committedAtStart])).toEqual([
      [true, 1],
      [false, 2],
    ]);
    rounds[1].finish();
    await turns();
    expect(second.settled).toBe(true);
  });

  it('commits with NORMAL on the connection itself: SQLite never fsyncs inside COMMIT', async () => {
    const bus = await open({ synchronous: 'FULL', syncFile: async () => undefined });
    const db = (bus as unknown as { db: Database.Database }).db;
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
  });

  it('does not make receive, complete, abandon or renewLock wait; deadLetter and createQueue do', async () => {
    const { rounds, syncFile } = manualSyncer();
    const bus = await open({ synchronous: 'FULL', syncFile });
    const sent = bus.send('q', [{ body: 'a' }, { body: 'b' }, { body: 'c' }]);
    await turns();
    rounds[0].finish();
    await sent;

    // A receive in the same transaction as a send resolves at COMMIT; the send after the sync.
    const [[a], later] = await Promise.all([bus.receive('q'), Promise.resolve(track(bus.send('q', [{ body: 'd' }])))]);
    expect(a.body.toString()).toBe('a');
    expect(later.settled).toBe(false);
    expect(rounds).toHaveLength(2);
    const [b, c] = await bus.receive('q', { maxMessages: 2 });
    await bus.renewLock(a);
    await bus.complete(a);
    await bus.abandon(b, { lastError: 'target down' });
    expect(rounds).toHaveLength(2);

    const dead = track(bus.deadLetter(c, { reason: 'Poison' }));
    const declared = track(bus.createQueue('other'));
    await turns();
    expect([dead.settled, declared.settled, later.settled]).toEqual([false, false, false]);
    rounds[1].finish();
    await turns();
    expect(later.settled).toBe(true);
    expect(rounds).toHaveLength(3);
    rounds[2].finish();
    await turns();
    expect([dead.settled, declared.settled]).toEqual([true, true]);
    expect(await bus.counts('q')).toEqual({ active: 2, scheduled: 0, deadLetter: 1 });
  });

  it('rejects the calls waiting for a failed sync with a retryable BusError naming the file and the cause', async () => {
    const { rounds, syncFile } = manualSyncer();
    const bus = await open({ synchronous: 'FULL', syncFile });
    const failed = bus.send('q', [{ body: 'a', messageId: 'order-1' }]).then(
      () => undefined,
      (err: unknown) => err,
    );
    await turns();
    rounds[0].finish(new Error('EIO: i/o error, fdatasync'));
    const err = await failed;
    expect(err).toBeInstanceOf(BusError);
    expect(err).toMatchObject({
      code: 'Unavailable',
      retryable: true,
      message: `The local bus database ${file} could not flush a commit to disk (synchronous: 'FULL'), so it may not survive a power loss; the call failed and may be retried: EIO: i/o error, fdatasync`,
    });
    // The retry: duplicate detection drops it (the first copy is in the file) and waits for the next round.
    const retried = bus.send('q', [{ body: 'a', messageId: 'order-1' }]);
    await turns();
    expect(rounds[1].withDirectory).toBe(true);
    rounds[1].finish();
    await expect(retried).resolves.toBeUndefined();
    expect(committed()).toBe(1);
  });

  it.each([['NORMAL' as const], [undefined]])('never syncs with synchronous %s', async (synchronous) => {
    const calls: string[] = [];
    const bus = await open({ synchronous, syncFile: async (f) => void calls.push(f) });
    await bus.createQueue('other');
    await bus.send('q', [{ body: 'a' }, { body: 'b' }]);
    const [a, b] = await bus.receive('q', { maxMessages: 2 });
    await bus.complete(a);
    await bus.deadLetter(b, { reason: 'Poison' });
    await bus.close();
    expect(calls).toEqual([]);
  });

  it('flushes the real WAL file by default, and keeps what was sent across a reopen', async () => {
    const bus = await open({ synchronous: 'FULL' });
    await bus.send('q', [{ body: 'a' }, { body: 'b' }]);
    const [a] = await bus.receive('q');
    await bus.complete(a);
    await bus.close();
    const again = await open({ synchronous: 'FULL' });
    expect((await again.peek('q')).map((m) => m.body.toString())).toEqual(['b']);
  });

  it('refuses a syncFile that is not a function', async () => {
    await expect(LocalBus.open({ dataDir, synchronous: 'FULL', syncFile: 'fsync' as unknown as () => Promise<void> })).rejects.toMatchObject({
      code: 'InvalidArgument',
      message: 'syncFile must be a function (file, withDirectory) => Promise<void>, got string',
    });
  });
});
