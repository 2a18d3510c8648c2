import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { APPLIED_VERSIONS_TABLE, AppliedVersionStore, type ChangeRef } from '../../../src/storage/applied-version-store';
import { SqliteTableStorage } from '../../../src/storage/sqlite-table-storage';
import type { TableStore } from '../../../src/storage/table-store';
import { FakeClock } from '../../support/fake-clock';

/** The applied-version store on the real SQLite table store: what it records, what it finds, how many reads. */
describe('AppliedVersionStore', () => {
  let dir: string;
  let storage: SqliteTableStorage;
  let table: TableStore;
  let reads: number;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-versions-'));
    storage = SqliteTableStorage.open(dir);
    const real = await storage.table(APPLIED_VERSIONS_TABLE);
    reads = 0;
    // Counts the queries (getMany calls): the guard must read once per partition, not per message.
    table = Object.assign(Object.create(real) as TableStore, {
      getMany: (partition: string, keys: readonly string[]) => {
        reads++;
        return real.getMany(partition, keys);
      },
    });
  });
  afterEach(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const change = (id: string, changeTracker: string, over: Partial<ChangeRef> = {}): ChangeRef => ({ jobName: 'contacts', action: 'NewUpdate', targetKey: { crm_id: id }, changeTracker, ...over });

  it('finds a newer applied change once flushed, not an equal or older one; last applied wins', async () => {
    const clock = new FakeClock();
    const store = new AppliedVersionStore(table, clock);
    store.recordApplied(change('C-1', '2026-01-01T00:00:05Z'), 'datetime');
    store.recordApplied(change('C-2', '2026-01-01T00:00:09Z'), 'datetime');
    // Applied later, though older (a forced resubmit): the target holds this one now.
    store.recordApplied(change('C-2', '2026-01-01T00:00:07Z'), 'datetime');
    await clock.advance(1_000);
    await store.flush();
    expect((await storage.table(APPLIED_VERSIONS_TABLE).then((t) => t.list())).map((r) => r.properties)).toEqual(
      expect.arrayContaining([{ ChangeTracker: '2026-01-01T00:00:07.0000000Z', WatermarkType: 'datetime', Action: 'NewUpdate' }]),
    );
    const reader = new AppliedVersionStore(table, undefined);
    const found = await reader.newerApplied([
      { ...change('C-1', '2026-01-01T00:00:01Z'), type: 'datetime' },
      { ...change('C-1', '2026-01-01T00:00:05Z'), type: 'datetime' },
      { ...change('C-2', '2026-01-01T00:00:08Z'), type: 'datetime' },
      { ...change('C-2', '2026-01-01T00:00:06Z') },
      { ...change('C-3', '2026-01-01T00:00:01Z'), type: 'datetime' },
    ]);
    expect(found.map((f) => f?.changeTracker)).toEqual(['2026-01-01T00:00:05.0000000Z', undefined, undefined, '2026-01-01T00:00:07.0000000Z', undefined]);
    await store.close();
  });

  it('after taking over from a dead host, records every apply (watched or not) until recordAllUntil, then only watched ones again', async () => {
    const clock = new FakeClock();
    const until = new Date(clock.now().getTime() + 300_000);
    const store = new AppliedVersionStore(table, clock, { watch: { windowMs: 0 }, recordAllUntil: until });
    const target = 'erp|contacts';
    expect(store.keepsNothing()).toBe(false);
    store.recordApplied(change('C-1', '2026-01-01T00:00:05Z', { target }), 'datetime');
    await clock.advance(300_000);
    // The dead host's batches have come back by now: back to watched records only.
    expect(store.keepsNothing()).toBe(true);
    store.recordApplied(change('C-2', '2026-01-01T00:00:05Z', { target }), 'datetime');
    await store.flush();
    const reader = new AppliedVersionStore(table, undefined);
    const found = await reader.newerApplied([
      { ...change('C-1', '2026-01-01T00:00:01Z', { target }), type: 'datetime' },
      { ...change('C-2', '2026-01-01T00:00:01Z', { target }), type: 'datetime' },
    ]);
    expect(found.map((f) => f?.changeTracker)).toEqual(['2026-01-01T00:00:05.0000000Z', undefined]);
    await store.close();
  });

  it('sees what this instance applied before it is written', async () => {
    const store = new AppliedVersionStore(table, new FakeClock());
    store.recordApplied(change('C-1', '2026-01-01T00:00:05Z'), 'datetime');
    const [found] = await store.newerApplied([{ ...change('C-1', '2026-01-01T00:00:01Z'), type: 'datetime' }]);
    expect(found).toMatchObject({ jobName: 'contacts', changeTracker: '2026-01-01T00:00:05.0000000Z' });
    await store.close();
  });

  it('a related job’s delete makes an upsert stale and its upsert a delete; another upsert job never does', async () => {
    const related: Record<string, string[]> = { accounts: ['deleted'], deleted: ['accounts', 'accounts-2'] };
    const store = new AppliedVersionStore(table, new FakeClock(), { relatedJobs: (name) => related[name] ?? [] });
    store.recordApplied(change('A-1', '2026-01-01T00:00:05Z', { jobName: 'deleted', action: 'Delete' }), 'datetime');
    store.recordApplied(change('A-2', '2026-01-01T00:00:05Z', { jobName: 'accounts-2' }), 'datetime');
    await store.flush();
    const found = await store.newerApplied([
      { ...change('A-1', '2026-01-01T00:00:01Z', { jobName: 'accounts' }), type: 'datetime' },
      { ...change('A-2', '2026-01-01T00:00:01Z', { jobName: 'accounts' }), type: 'datetime' },
      { ...change('A-2', '2026-01-01T00:00:01Z', { jobName: 'deleted', action: 'Delete' }), type: 'datetime' },
    ]);
    expect(found.map((f) => f && `${f.jobName}:${f.action}`)).toEqual(['deleted:Delete', undefined, 'accounts-2:NewUpdate']);
    await store.close();
  });

  it('with a target scope, writes only the applies of watched records; a watch catches up what was applied within the window', async () => {
    const clock = new FakeClock('2026-06-01T00:00:00Z');
    const a = new AppliedVersionStore(table, clock, { watch: { windowMs: 10_000 } });
    const b = new AppliedVersionStore(table, clock, { watch: { windowMs: 10_000 } });
    await Promise.all([a.flush(), b.flush()]);
    const scoped = (id: string, tracker: string) => ({ ...change(id, tracker), target: 'erp\ncontacts' });
    const rows = async () => (await storage.table(APPLIED_VERSIONS_TABLE).then((t) => t.list())).filter((r) => r.partitionKey.startsWith('contacts|')).length;
    // Nothing set aside: a sync writes no row.
    for (let i = 0; i < 50; i++) a.recordApplied(scoped(`N-${i}`, '2026-01-01T00:00:05Z'), 'datetime');
    await a.flush();
    expect(await rows()).toBe(0);
    // Watched first (a message of it failed on b), then applied on a after a's refresh: written.
    await b.watch([scoped('W-1', '')]);
    await clock.advance(1_000);
    await a.refreshWatches();
    a.recordApplied(scoped('W-1', '2026-01-01T00:00:09Z'), 'datetime');
    // Applied on a, then watched on b within the window (b's message of it failed just after): written at a's next refresh.
    a.recordApplied(scoped('W-2', '2026-01-01T00:00:09Z'), 'datetime');
    await b.watch([scoped('W-2', '')]);
    // Applied on a, watched on b two windows later: not written (the one gap, documented).
    a.recordApplied(scoped('W-3', '2026-01-01T00:00:09Z'), 'datetime');
    await clock.advance(21_000);
    await b.watch([scoped('W-3', '')]);
    await a.refreshWatches();
    await a.flush();
    const found = await b.newerApplied(['W-1', 'W-2', 'W-3'].map((id) => ({ ...change(id, '2026-01-01T00:00:01Z'), type: 'datetime' as const })));
    expect(found.map((f) => f?.changeTracker)).toEqual(['2026-01-01T00:00:09.0000000Z', '2026-01-01T00:00:09.0000000Z', undefined]);
    expect(await rows()).toBe(2);
    await Promise.all([a.close(), b.close()]);
  });

  it('with no window (one processing instance, the local host) remembers nothing, and records what is watched at once', async () => {
    const clock = new FakeClock('2026-06-01T00:00:00Z');
    const store = new AppliedVersionStore(table, clock, { watch: { windowMs: 0 } });
    await store.refreshWatches();
    const scoped = (id: string, tracker: string) => ({ ...change(id, tracker), target: 'erp\ncontacts' });
    store.recordApplied(scoped('O-1', '2026-01-01T00:00:09Z'), 'datetime');
    await store.watch([scoped('O-1', ''), scoped('O-2', '')]);
    store.recordApplied(scoped('O-2', '2026-01-01T00:00:09Z'), 'datetime');
    const found = await store.newerApplied(['O-1', 'O-2'].map((id) => ({ ...change(id, '2026-01-01T00:00:01Z'), type: 'datetime' as const })));
    expect(found.map((f) => f?.changeTracker)).toEqual([undefined, '2026-01-01T00:00:09.0000000Z']);
    await store.close();
  });

  it('reads a whole batch with one query per partition, and nothing for an empty one', async () => {
    const store = new AppliedVersionStore(table, new FakeClock());
    for (let i = 0; i < 300; i++) store.recordApplied(change(`C-${i}`, '2026-01-01T00:00:05Z'), 'datetime');
    await store.flush();
    expect(await store.newerApplied([])).toEqual([]);
    expect(reads).toBe(0);
    const found = await store.newerApplied(Array.from({ length: 300 }, (_, i) => ({ ...change(`C-${i}`, '2026-01-01T00:00:01Z'), type: 'datetime' as const })));
    expect(found.every((f) => f !== undefined)).toBe(true);
    expect(reads).toBe(16);
    await store.close();
  });
});
