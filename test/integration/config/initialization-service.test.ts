import fs from 'node:fs';
import os from 'node:os';
import { CONFIG_PARTITION, ConfigStore } from '../../../src/config/config-store';
import { encodeJsonProperties } from '../../../src/storage/entity-codec';
import { InitializationService, type InitializationStep } from '../../../src/config/initialization-service';
import { validateConfig } from '../../../src/config/validate-config';
import { errorKind } from '../../../src/platform/errors';
import { openTableStorage } from '../../../src/storage/table-client-factory';
import type { TableStorage, TableStore } from '../../../src/storage/table-store';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';
import { fixtureConfig, writeConfigDir } from './config-fixture';

let azurite: TestAzurite;
let storage: TableStorage;
const dirs: string[] = [];

beforeAll(async () => {
  azurite = await startTestAzurite();
  storage = await openTableStorage({ storageConnectionString: azurite.connectionString, dataDir: os.tmpdir() });
  await new ConfigStore(storage).push(validateConfig(fixtureConfig()));
});

afterAll(async () => {
  await storage?.close();
  await azurite?.stop();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Real storage that records table opens and partition queries, in order. */
function recording(inner: TableStorage, log: string[]): TableStorage {
  const wrap = (table: TableStore): TableStore => ({
    tableName: table.tableName,
    get: (p, r) => table.get(p, r),
    getMany: (p, r) => table.getMany(p, r),
    upsert: (row) => table.upsert(row),
    queryPartition: (p) => {
      log.push(`query ${table.tableName}`);
      return table.queryPartition(p);
    },
    delete: (p, r) => table.delete(p, r),
    getVersioned: (p, r) => table.getVersioned(p, r),
    getManyVersioned: (p, r) => table.getManyVersioned(p, r),
    queryPartitionVersioned: (p) => table.queryPartitionVersioned(p),
    putIf: (row, version) => table.putIf(row, version),
    deleteIf: (p, r, version) => table.deleteIf(p, r, version),
    submitBatch: (a) => table.submitBatch(a),
    list: () => table.list(),
  });
  return {
    description: inner.description,
    table: async (name) => {
      log.push(`table ${name}`);
      return wrap(await inner.table(name));
    },
    close: () => inner.close(),
  };
}

describe('InitializationService (tables)', () => {
  it('loads once, in the order storage → connections → mappings → jobs (and pairs), and shares one attempt', async () => {
    const log: string[] = [];
    const service = new InitializationService({ storage: recording(storage, log), onStep: (step) => log.push(`step ${step}`) });
    const [a, b] = await Promise.all([service.ensureInitialized(), service.ensureInitialized()]);
    expect(a).toBe(b);
    expect(await service.ensureInitialized()).toBe(a);
    expect(log).toEqual([
      'step storage',
      'table connections',
      'table mappings',
      'table jobs',
      'table pairs',
      'table watermark',
      'step connections',
      'table connections',
      'query connections',
      'step mappings',
      'table mappings',
      'query mappings',
      'step jobs',
      'table jobs',
      'query jobs',
      'table pairs',
      'query pairs',
    ]);
    expect(a).toEqual(validateConfig(fixtureConfig()));
    expect(service.getJob('crm-to-erp-customers').mapping).toBe('customers');
    expect(service.getMapping('customers').target.entity).toBe('accounts');
    expect(service.getConnection('erp').secrets).toEqual({ password: 'ERP_PASSWORD' });
    expect(service.findJob('nope')).toBeUndefined();
    expect(() => service.getJob('nope')).toThrow('unknown job "nope"');
  });

  it('refuses lookups before loading', () => {
    const service = new InitializationService({ storage });
    expect(service.isInitialized).toBe(false);
    expect(() => service.getConnection('crm')).toThrow('configuration not loaded yet: call ensureInitialized() first');
  });

  it('fails fast on an unreachable storage and retries on the next call', async () => {
    let attempts = 0;
    const flaky: TableStorage = {
      description: 'flaky',
      table: (name) => (++attempts === 1 ? Promise.reject(new Error('storage down')) : storage.table(name)),
      close: async () => {},
    };
    const service = new InitializationService({ storage: flaky });
    const both = await Promise.allSettled([service.ensureInitialized(), service.ensureInitialized()]);
    expect(both.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(attempts).toBe(1);
    expect((await service.ensureInitialized()).jobs.map((j) => j.name)).toEqual(['crm-to-erp-customers']);
  });

  it('fails fast on an invalid stored configuration, naming table and path, and loads once it is fixed', async () => {
    const jobs = await storage.table('jobs');
    await jobs.upsert({ partitionKey: CONFIG_PARTITION, rowKey: 'zz-broken', properties: encodeJsonProperties({ name: 'zz-broken', schedule: '* * * * * *', source: 'crm', target: 'erp', mapping: 'customers', watermark: { type: 'datetime', field: 'm' }, extra: 1 }) });
    const service = new InitializationService({ storage });
    try {
      await expect(service.ensureInitialized()).rejects.toThrow('jobs: jobs["zz-broken"].extra: unknown property');
    } finally {
      await jobs.delete(CONFIG_PARTITION, 'zz-broken');
    }
    expect((await service.ensureInitialized()).jobs).toHaveLength(1);
  });
});

describe('InitializationService (files)', () => {
  it('loads a config folder, creating the tables when storage is given', async () => {
    const dir = writeConfigDir();
    dirs.push(dir);
    const steps: InitializationStep[] = [];
    const log: string[] = [];
    const service = new InitializationService({ source: 'files', configDir: dir, storage: recording(storage, log), onStep: (s) => steps.push(s) });
    expect(await service.ensureInitialized()).toEqual(validateConfig(fixtureConfig()));
    expect(steps).toEqual(['storage', 'files']);
    expect(log).toEqual(['table connections', 'table mappings', 'table jobs', 'table pairs', 'table watermark']);
  });

  it('fails with every issue (file and path) and succeeds once the folder is fixed', async () => {
    const broken = fixtureConfig();
    broken.jobs[0].priority = 'urgent';
    const dir = writeConfigDir(broken);
    dirs.push(dir);
    const service = new InitializationService({ source: 'files', configDir: dir });
    const err = await service.ensureInitialized().catch((e: unknown) => e);
    expect(errorKind(err)).toBe('config');
    expect((err as Error).message).toMatch(/^jobs\.yaml: jobs\[0\]\.priority: /);
    fs.rmSync(dir, { recursive: true });
    fs.renameSync(writeConfigDir(), dir);
    expect((await service.ensureInitialized()).jobs[0].priority).toBe('normal');
  });
});
