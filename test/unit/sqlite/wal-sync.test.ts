import { WalSync } from '../../../src/sqlite/wal-sync';

/** A syncer whose rounds the test finishes by hand. */
function manualSyncer() {
  const rounds: Array<{ file: string; withDirectory: boolean; finish: (error?: Error) => void }> = [];
  const syncFile = (file: string, withDirectory: boolean) =>
    new Promise<void>((resolve, reject) => rounds.push({ file, withDirectory, finish: (error) => (error ? reject(error) : resolve()) }));
  return { rounds, syncFile };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('WalSync (durable commits without blocking the event loop)', () => {
  it('starts a sync at once when none is running, with the directory the first time', async () => {
    const { rounds, syncFile } = manualSyncer();
    const wal = new WalSync('/data/target.db-wal', syncFile);
    const first = wal.durable();
    expect(rounds.map((r) => [r.file, r.withDirectory])).toEqual([['/data/target.db-wal', true]]);
    rounds[0].finish();
    await first;
    const second = wal.durable();
    expect(rounds[1].withDirectory).toBe(false);
    rounds[1].finish();
    await expect(second).resolves.toBeUndefined();
  });

  it('lets commits made while a sync runs share one next round, started when it ends', async () => {
    const { rounds, syncFile } = manualSyncer();
    const wal = new WalSync('/data/t.db-wal', syncFile);
    const settled: string[] = [];
    const track = (name: string, p: Promise<void>) => p.then(() => settled.push(name));
    const a = track('a', wal.durable());
    // b and c committed after round 1 started: round 1 may not hold them.
    const b = track('b', wal.durable());
    const c = track('c', wal.durable());
    expect(rounds).toHaveLength(1);
    rounds[0].finish();
    await a;
    await tick();
    expect(settled).toEqual(['a']);
    expect(rounds).toHaveLength(2);
    rounds[1].finish();
    await Promise.all([b, c]);
    expect(settled).toEqual(['a', 'b', 'c']);
    expect(rounds).toHaveLength(2);
  });

  it('fails the waiters of a round whose sync failed, and syncs the directory again next time', async () => {
    const { rounds, syncFile } = manualSyncer();
    const wal = new WalSync('/data/t.db-wal', syncFile);
    const first = wal.durable();
    const joined = wal.durable();
    rounds[0].finish(new Error('EIO: i/o error, fsync'));
    await expect(first).rejects.toThrow('EIO: i/o error, fsync');
    await tick();
    // The next round ran for the joined waiter; the directory was never confirmed synced.
    expect(rounds[1].withDirectory).toBe(true);
    rounds[1].finish();
    await expect(joined).resolves.toBeUndefined();
  });
});
