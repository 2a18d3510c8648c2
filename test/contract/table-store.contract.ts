import { randomUUID } from 'node:crypto';
import { errorKind } from '../../src/platform/errors';
import type { TableBatchAction, TableStorage, TableStore } from '../../src/storage/table-store';
import { capabilityIt } from './capability-it';

/** What an adapter may not do, each with its reason (printed when its cases are skipped). */
type TableStoreCapability =
  /** Refuses an entity over 1 MiB, as Table Storage does. */
  | 'entitySizeLimit'
  /** Table names are case-insensitive, as in Table Storage. */
  | 'caseInsensitiveNames';

export interface TableStoreContractOptions {
  unsupported?: Partial<Record<TableStoreCapability, string>>;
}

/**
 * The table-store port's contract (`src/storage/table-store.ts`), run against every adapter: rows
 * round-trip with their value types, an upsert replaces the whole entity, reads are ordered by
 * keys, `submitBatch` applies transactions all or nothing per partition, conditional writes
 * (`putIf`, `deleteIf`) act only on the version read, and rows Table Storage
 * refuses are refused with the error kinds the processing relies on. `open` runs once per suite;
 * each case uses a table of its own.
 */
export function runTableStoreContract(name: string, open: () => Promise<{ storage: TableStorage; close(): Promise<void> }>, options: TableStoreContractOptions = {}): void {
  let opened: { storage: TableStorage; close(): Promise<void> } | undefined;
  const caseIt = capabilityIt<TableStoreCapability>(`Table store contract ${name}`, options.unsupported ?? {});
  const table = (): Promise<TableStore> => {
    if (!opened) throw new Error(`${name}: the contract harness is not ready (did beforeAll fail?)`);
    return opened.storage.table(`contract${randomUUID().replace(/-/g, '').slice(0, 16)}`);
  };
  const rejection = async (promise: Promise<unknown>): Promise<unknown> => promise.then(() => new Error('expected a rejection'), (err: unknown) => err);

  describe(`Table store contract: ${name}`, () => {
    beforeAll(async () => {
      opened = await open();
    }, 60_000);
    afterAll(async () => {
      await opened?.close();
    });

    caseIt([])('gets nothing for a missing row; an upsert replaces the whole entity; null is never stored', async () => {
      const t = await table();
      expect(await t.get('p', 'r')).toBeUndefined();
      await t.upsert({ partitionKey: 'p', rowKey: 'r', properties: { A: 'one', B: 2, Gone: null } });
      expect(await t.get('p', 'r')).toEqual({ partitionKey: 'p', rowKey: 'r', properties: { A: 'one', B: 2 } });
      await t.upsert({ partitionKey: 'p', rowKey: 'r', properties: { C: true } });
      expect(await t.get('p', 'r')).toEqual({ partitionKey: 'p', rowKey: 'r', properties: { C: true } });
    });

    caseIt([])('keeps value types: text (empty, non-ASCII), integers, doubles, booleans, dates', async () => {
      const t = await table();
      const properties = { Empty: '', Text: 'Zürich – 東京 🚀', Int: 42, Negative: -7, Big: 2 ** 40, Double: 0.25, Yes: true, No: false, At: new Date('2026-12-03T10:11:12.345Z') };
      await t.upsert({ partitionKey: 'types', rowKey: 'r', properties });
      expect((await t.get('types', 'r'))?.properties).toEqual(properties);
    });

    caseIt([])('reads a partition ordered by row key and the table by partition, then row key', async () => {
      const t = await table();
      for (const [pk, rk] of [['b', '2'], ['a', '9'], ['b', '10'], ['a', '1'], ['c', 'x']]) await t.upsert({ partitionKey: pk, rowKey: rk, properties: { V: `${pk}${rk}` } });
      expect((await t.queryPartition('b')).map((r) => r.rowKey)).toEqual(['10', '2']);
      expect(await t.queryPartition('none')).toEqual([]);
      expect((await t.list()).map((r) => `${r.partitionKey}/${r.rowKey}`)).toEqual(['a/1', 'a/9', 'b/10', 'b/2', 'c/x']);
    });

    caseIt([])('gets many rows of a partition at once, missing ones absent, a key asked twice once', async () => {
      const t = await table();
      for (let i = 0; i < 40; i++) await t.upsert({ partitionKey: 'many', rowKey: `k${i}`, properties: { I: i } });
      await t.upsert({ partitionKey: 'other', rowKey: 'k1', properties: { I: -1 } });
      const found = await t.getMany('many', ['k1', 'k1', 'missing', ...Array.from({ length: 30 }, (_, i) => `k${i + 10}`)]);
      expect([...found.keys()].sort()).toEqual(['k1', ...Array.from({ length: 30 }, (_, i) => `k${i + 10}`)].sort());
      expect(found.get('k1')?.properties).toEqual({ I: 1 });
      expect((await t.getMany('many', [])).size).toBe(0);
    });

    caseIt([])('deletes a row (true) and answers false for a missing one', async () => {
      const t = await table();
      await t.upsert({ partitionKey: 'd', rowKey: 'r', properties: { V: 1 } });
      expect(await t.delete('d', 'r')).toBe(true);
      expect(await t.delete('d', 'r')).toBe(false);
      expect(await t.get('d', 'r')).toBeUndefined();
    });

    caseIt([])('submits more than 100 actions over partitions, upserts and deletes in order', async () => {
      const t = await table();
      await t.upsert({ partitionKey: 'x', rowKey: 'old', properties: { V: 0 } });
      const actions: TableBatchAction[] = Array.from({ length: 250 }, (_, i) => ({ kind: 'upsert', row: { partitionKey: `x${i % 2}`, rowKey: `r${String(i).padStart(3, '0')}`, properties: { I: i } } }));
      actions.push({ kind: 'delete', partitionKey: 'x', rowKey: 'old' });
      await t.submitBatch(actions);
      expect(await t.queryPartition('x0')).toHaveLength(125);
      expect(await t.queryPartition('x1')).toHaveLength(125);
      expect(await t.get('x', 'old')).toBeUndefined();
    });

    caseIt([])('rejects a transaction that deletes a missing row as a whole (permanent)', async () => {
      const t = await table();
      const err = await rejection(
        t.submitBatch([
          { kind: 'upsert', row: { partitionKey: 'bad', rowKey: 'a', properties: { V: 1 } } },
          { kind: 'delete', partitionKey: 'bad', rowKey: 'missing' },
        ]),
      );
      expect(errorKind(err)).toBe('permanent');
      expect(await t.get('bad', 'a')).toBeUndefined();
    });

    caseIt([])('rejects the same entity twice in one transaction (permanent), none of it applied', async () => {
      const t = await table();
      const row = { partitionKey: 'twice', rowKey: 'r', properties: { V: 1 } };
      const err = await rejection(t.submitBatch([{ kind: 'upsert', row: { ...row, rowKey: 'other' } }, { kind: 'upsert', row }, { kind: 'upsert', row }]));
      expect(errorKind(err)).toBe('permanent');
      expect(await t.queryPartition('twice')).toEqual([]);
    });

    caseIt([])('refuses keys Table Storage refuses (configuration error) and reserved property names before any write', async () => {
      const t = await table();
      await expect(t.upsert({ partitionKey: 'a/b', rowKey: 'r', properties: {} })).rejects.toThrow(`partition key "a/b" cannot be a table key: contains '/'`);
      await expect(t.get('p', 'r#1')).rejects.toThrow(`row key "r#1" cannot be a table key: contains '#'`);
      expect(errorKind(await rejection(t.delete('', 'r')))).toBe('config');
      await expect(t.upsert({ partitionKey: 'p', rowKey: 'r', properties: { timestamp: 'x' } })).rejects.toThrow('property name "timestamp" is reserved');
      expect(await t.list()).toEqual([]);
    });

    caseIt([])('refuses a string property over 32 Ki characters (permanent) and takes one of 32 Ki', async () => {
      const t = await table();
      expect(errorKind(await rejection(t.upsert({ partitionKey: 'big', rowKey: 'one', properties: { Text: 'x'.repeat(32 * 1024 + 1) } })))).toBe('permanent');
      await t.upsert({ partitionKey: 'big', rowKey: 'fits', properties: { Text: 'x'.repeat(32 * 1024) } });
      expect((await t.queryPartition('big')).map((r) => r.rowKey)).toEqual(['fits']);
    });

    caseIt([])('reads versions: the same by every read, a new one after every write', async () => {
      const t = await table();
      expect(await t.getVersioned('v', 'r')).toBeUndefined();
      await t.upsert({ partitionKey: 'v', rowKey: 'r', properties: { V: 1 } });
      const first = await t.getVersioned('v', 'r');
      expect(first).toEqual({ partitionKey: 'v', rowKey: 'r', properties: { V: 1 }, version: expect.any(String) });
      expect((await t.getManyVersioned('v', ['r', 'missing'])).get('r')?.version).toBe(first?.version);
      expect((await t.queryPartitionVersioned('v')).map((r) => r.version)).toEqual([first?.version]);
      await t.upsert({ partitionKey: 'v', rowKey: 'r', properties: { V: 1 } });
      const second = (await t.getVersioned('v', 'r'))?.version;
      expect(second).not.toBe(first?.version);
      await t.submitBatch([{ kind: 'upsert', row: { partitionKey: 'v', rowKey: 'r', properties: { V: 2 } } }]);
      expect((await t.getVersioned('v', 'r'))?.version).not.toBe(second);
      expect(await t.get('v', 'r')).toEqual({ partitionKey: 'v', rowKey: 'r', properties: { V: 2 } });
    });

    caseIt([])('putIf with no version inserts only a missing row', async () => {
      const t = await table();
      expect(await t.putIf({ partitionKey: 'c', rowKey: 'r', properties: { V: 'first' } }, null)).toBe(true);
      expect(await t.putIf({ partitionKey: 'c', rowKey: 'r', properties: { V: 'second' } }, null)).toBe(false);
      expect((await t.get('c', 'r'))?.properties).toEqual({ V: 'first' });
    });

    caseIt([])('putIf with a version replaces only the row as read; a stale or deleted one is left alone', async () => {
      const t = await table();
      await t.upsert({ partitionKey: 'c', rowKey: 'r', properties: { V: 0, Old: true } });
      const read = (await t.getVersioned('c', 'r'))!;
      expect(await t.putIf({ partitionKey: 'c', rowKey: 'r', properties: { V: 1 } }, read.version)).toBe(true);
      expect((await t.get('c', 'r'))?.properties).toEqual({ V: 1 });
      expect(await t.putIf({ partitionKey: 'c', rowKey: 'r', properties: { V: 2 } }, read.version)).toBe(false);
      expect((await t.get('c', 'r'))?.properties).toEqual({ V: 1 });
      const current = (await t.getVersioned('c', 'r'))!;
      await t.delete('c', 'r');
      expect(await t.putIf({ partitionKey: 'c', rowKey: 'r', properties: { V: 3 } }, current.version)).toBe(false);
      expect(await t.get('c', 'r')).toBeUndefined();
      // A row written again after its delete has a new version too.
      await t.upsert({ partitionKey: 'c', rowKey: 'r', properties: { V: 1 } });
      expect(await t.putIf({ partitionKey: 'c', rowKey: 'r', properties: { V: 4 } }, current.version)).toBe(false);
    });

    caseIt([])('of concurrent conditional writes from the same read exactly one wins', async () => {
      const t = await table();
      const inserts = await Promise.all(Array.from({ length: 8 }, (_, i) => t.putIf({ partitionKey: 'race', rowKey: 'new', properties: { W: i } }, null)));
      expect(inserts.filter(Boolean)).toHaveLength(1);
      expect((await t.get('race', 'new'))?.properties).toEqual({ W: inserts.indexOf(true) });
      const read = (await t.getVersioned('race', 'new'))!;
      const updates = await Promise.all(Array.from({ length: 8 }, (_, i) => t.putIf({ partitionKey: 'race', rowKey: 'new', properties: { U: i } }, read.version)));
      expect(updates.filter(Boolean)).toHaveLength(1);
      expect((await t.get('race', 'new'))?.properties).toEqual({ U: updates.indexOf(true) });
    });

    caseIt([])('deleteIf deletes only the row as read; false for a changed or missing one', async () => {
      const t = await table();
      await t.upsert({ partitionKey: 'di', rowKey: 'r', properties: { V: 0 } });
      const stale = (await t.getVersioned('di', 'r'))!;
      await t.upsert({ partitionKey: 'di', rowKey: 'r', properties: { V: 1 } });
      expect(await t.deleteIf('di', 'r', stale.version)).toBe(false);
      expect(await t.get('di', 'r')).toBeDefined();
      const current = (await t.getVersioned('di', 'r'))!;
      expect(await t.deleteIf('di', 'r', current.version)).toBe(true);
      expect(await t.get('di', 'r')).toBeUndefined();
      expect(await t.deleteIf('di', 'r', current.version)).toBe(false);
    });

    caseIt(['entitySizeLimit'])('refuses an entity over 1 MiB (permanent)', async () => {
      const t = await table();
      const parts = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`Part${i}`, 'y'.repeat(32 * 1024)]));
      expect(errorKind(await rejection(t.upsert({ partitionKey: 'big', rowKey: 'all', properties: parts })))).toBe('permanent');
      expect(await t.queryPartition('big')).toEqual([]);
    });

    caseIt(['caseInsensitiveNames'])('names tables case-insensitively', async () => {
      if (!opened) throw new Error('not opened');
      const tableName = `Case${randomUUID().replace(/-/g, '').slice(0, 12)}`;
      await (await opened.storage.table(tableName)).upsert({ partitionKey: 'p', rowKey: 'r', properties: { V: 1 } });
      expect(await (await opened.storage.table(tableName.toLowerCase())).get('p', 'r')).toBeDefined();
    });
  });
}
