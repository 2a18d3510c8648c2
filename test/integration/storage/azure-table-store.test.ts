import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { errorKind } from '../../../src/platform/errors';
import { startAzurite } from '../../../src/storage/azurite';
import { decodeJsonProperties, encodeJsonProperties } from '../../../src/storage/entity-codec';
import { openTableStorage } from '../../../src/storage/table-client-factory';
import type { TableStorage } from '../../../src/storage/table-store';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';

let azurite: TestAzurite;
let storage: TableStorage;

beforeAll(async () => {
  azurite = await startTestAzurite();
  storage = await openTableStorage({ storageConnectionString: azurite.connectionString, dataDir: os.tmpdir() });
});

afterAll(async () => {
  await storage?.close();
  await azurite?.stop();
});

describe('AzureTableStore against Azurite', () => {
  it('creates the table once and gets, upserts (replace), queries and deletes rows', async () => {
    const table = await storage.table('storecrud');
    expect(await storage.table('storecrud')).toBe(table);
    expect(await table.get('p', 'r1')).toBeUndefined();
    const when = new Date('2026-03-04T05:06:07.089Z');
    await table.upsert({ partitionKey: 'p', rowKey: 'r1', properties: { S: 'text', D: when, N: 7, B: false, Gone: null } });
    expect(await table.get('p', 'r1')).toEqual({ partitionKey: 'p', rowKey: 'r1', properties: { S: 'text', D: when, N: 7, B: false } });
    await table.upsert({ partitionKey: 'p', rowKey: 'r1', properties: { S: 'replaced' } });
    expect((await table.get('p', 'r1'))?.properties).toEqual({ S: 'replaced' });
    await table.upsert({ partitionKey: 'p', rowKey: 'r0', properties: {} });
    await table.upsert({ partitionKey: 'q', rowKey: 'r9', properties: {} });
    expect((await table.queryPartition('p')).map((r) => r.rowKey)).toEqual(['r0', 'r1']);
    expect((await table.list()).map((r) => `${r.partitionKey}/${r.rowKey}`)).toEqual(['p/r0', 'p/r1', 'q/r9']);
    expect(await table.delete('p', 'r1')).toBe(true);
    expect(await table.delete('p', 'r1')).toBe(false);
    expect(await table.get('p', 'r1')).toBeUndefined();
  });

  it('quotes partition keys in queries', async () => {
    const table = await storage.table('storequote');
    await table.upsert({ partitionKey: "o'brien", rowKey: 'a', properties: {} });
    expect((await table.queryPartition("o'brien")).map((r) => r.rowKey)).toEqual(['a']);
  });

  it('submits more than 100 actions over several partitions', async () => {
    const table = await storage.table('storebatch');
    const rows = Array.from({ length: 230 }, (_, i) => ({
      kind: 'upsert' as const,
      row: { partitionKey: i % 2 ? 'odd' : 'even', rowKey: `k${String(i).padStart(3, '0')}`, properties: { I: i } },
    }));
    await table.submitBatch(rows);
    expect(await table.queryPartition('odd')).toHaveLength(115);
    expect(await table.queryPartition('even')).toHaveLength(115);
    await table.submitBatch(rows.slice(0, 101).map((a) => ({ kind: 'delete', partitionKey: a.row.partitionKey, rowKey: a.row.rowKey })));
    expect(await table.list()).toHaveLength(129);
  });

  it('round-trips a definition over 64 KB through the codec', async () => {
    const table = await storage.table('storecodec');
    const definition = { name: 'wide', fields: Array.from({ length: 900 }, (_, i) => ({ target: `field_${i}_${'x'.repeat(50)}_${'ä'.repeat(10)}`, source: `src_${i}` })) };
    expect(JSON.stringify(definition).length).toBeGreaterThan(64 * 1024);
    // Non-ASCII text over 64 KiB is what Azurite 3.35 corrupts unless the codec escapes it.
    const properties = encodeJsonProperties(definition);
    expect(properties.DefinitionParts).toBe(5);
    await table.upsert({ partitionKey: 'config', rowKey: 'wide', properties });
    const row = await table.get('config', 'wide');
    expect(row?.properties).toEqual(properties);
    expect(decodeJsonProperties('mapping "wide"', row!.properties)).toEqual(definition);
  });

  it('rejects forbidden keys before any request', async () => {
    const table = await storage.table('storekeys');
    await expect(table.upsert({ partitionKey: 'p', rowKey: 'a/b', properties: {} })).rejects.toThrow(`row key "a/b" cannot be a table key: contains '/'`);
    await expect(table.get('p', 'x#y')).rejects.toThrow(`row key "x#y" cannot be a table key: contains '#'`);
    await expect(table.get('p\t', 'x')).rejects.toThrow('partition key "p\\t" cannot be a table key: contains a control character');
  });

  it('classifies a service rejection as permanent, with the service code and no URL', async () => {
    const table = await storage.table('storeerr');
    const err = await table.upsert({ partitionKey: 'p', rowKey: 'r', properties: { Big: 'z'.repeat(40_000) } }).catch((e: unknown) => e);
    expect(errorKind(err)).toBe('permanent');
    expect((err as Error).message).toBe(
      'table upsert on "storeerr" failed: 400 PropertyValueTooLarge The property value exceeds the maximum allowed size (64KB). If the property value is a string, it is UTF-16 encoded and the maximum number of characters should be 32K or less.',
    );
  });

  it('classifies an unreachable storage as transient', async () => {
    const dead = await startAzurite({ port: 0 });
    await dead.stop();
    const gone = await openTableStorage({ storageConnectionString: dead.connectionString, dataDir: os.tmpdir() }, { maxRetries: 0 });
    const err = await gone.table('x').catch((e: unknown) => e);
    expect(errorKind(err)).toBe('transient');
    expect((err as Error).message).toMatch(/^table create table on "x" failed: ECONNREFUSED connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
    await gone.close();
  }, 60_000);

  it('starts Azurite with the given Node.js flags (a CPU profile written when it stops)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-azurite-prof-'));
    try {
      const profiled = await startAzurite({ port: 0, nodeFlags: ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-name', 'azurite.cpuprofile'] });
      // Some work first: a SIGINT in the moment after "started" may come before Azurite handles it (no profile then).
      const tables = await openTableStorage({ storageConnectionString: profiled.connectionString, dataDir: os.tmpdir() });
      await (await tables.table('profiled')).upsert({ partitionKey: 'p', rowKey: 'r', properties: {} });
      await tables.close();
      await profiled.stop();
      expect(fs.readdirSync(dir)).toEqual(['azurite.cpuprofile']);
      expect(JSON.parse(fs.readFileSync(path.join(dir, 'azurite.cpuprofile'), 'utf8')).nodes.length).toBeGreaterThan(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('openTableStorage without storage settings', () => {
  it('starts a persistent Azurite, reuses a running one, and keeps data across restarts', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-azurite-'));
    const probe = await startAzurite({ port: 0 });
    const port = probe.port; // a port known to be free once this probe stops
    await probe.stop();
    const lines: string[] = [];
    try {
      const first = await openTableStorage({ dataDir }, { localPort: port, log: (l) => lines.push(l) });
      expect(first.description).toBe(`Azurite at 127.0.0.1:${port} (started, data in ${path.join(dataDir, 'azurite')})`);
      expect(lines).toEqual([`started Azurite at 127.0.0.1:${port}, data in ${path.join(dataDir, 'azurite')}`]);
      await (await first.table('persisted')).upsert({ partitionKey: 'p', rowKey: 'r', properties: { V: 'kept' } });

      const second = await openTableStorage({ dataDir }, { localPort: port });
      expect(second.description).toBe(`Azurite at 127.0.0.1:${port} (already running)`);
      expect((await (await second.table('persisted')).get('p', 'r'))?.properties).toEqual({ V: 'kept' });
      await second.close(); // does not stop what it did not start
      expect((await (await first.table('persisted')).get('p', 'r'))?.properties).toEqual({ V: 'kept' });
      await first.close();

      const third = await openTableStorage({ dataDir }, { localPort: port });
      expect(third.description).toMatch(/\(started, data in /);
      expect((await (await third.table('persisted')).get('p', 'r'))?.properties).toEqual({ V: 'kept' });
      await third.close();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
