import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CONFIG_PARTITION, ConfigStore, writeConfigFolder } from '../../../src/config/config-store';
import { loadConfigFolder } from '../../../src/config/load-config';
import { validateConfig } from '../../../src/config/validate-config';
import type { HighwaterConfig } from '../../../src/model/config';
import { errorKind } from '../../../src/platform/errors';
import { encodeJsonProperties } from '../../../src/storage/entity-codec';
import { openTableStorage } from '../../../src/storage/table-client-factory';
import type { TableStorage } from '../../../src/storage/table-store';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';
import { fixtureConfig, writeConfigDir } from './config-fixture';

let azurite: TestAzurite;
let storage: TableStorage;
let store: ConfigStore;
const dirs: string[] = [];

beforeAll(async () => {
  azurite = await startTestAzurite();
  storage = await openTableStorage({ storageConnectionString: azurite.connectionString, dataDir: os.tmpdir() });
  store = new ConfigStore(storage);
});

afterAll(async () => {
  await storage?.close();
  await azurite?.stop();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Every test starts from empty config tables (they share one Azurite). */
beforeEach(async () => {
  await store.push({ connections: [], mappings: [], jobs: [], pairs: [] });
});

function valid(mutate: (c: ReturnType<typeof fixtureConfig>) => void = () => {}): HighwaterConfig {
  const raw = fixtureConfig();
  mutate(raw);
  return validateConfig(raw);
}

describe('ConfigStore', () => {
  it('pushes, diffs and pulls a configuration round trip', async () => {
    const config = valid();
    const first = await store.diff(config);
    expect(first).toEqual({
      connections: { added: ['crm', 'erp'], changed: [], removed: [] },
      mappings: { added: ['customers'], changed: [], removed: [] },
      jobs: { added: ['crm-to-erp-customers'], changed: [], removed: [] },
    });
    expect(await store.push(config)).toEqual(first);
    expect(await store.pull()).toEqual(config);
    const raw = await store.read();
    expect(raw.jobs).toEqual([JSON.parse(JSON.stringify(config.jobs[0]))]);
  });

  it('is idempotent: a second push changes nothing and the diff is empty', async () => {
    const config = valid();
    await store.push(config);
    const empty = { added: [], changed: [], removed: [] };
    expect(await store.diff(config)).toEqual({ connections: empty, mappings: empty, jobs: empty });
    expect(await store.push(config)).toEqual({ connections: empty, mappings: empty, jobs: empty });
  });

  it('reports and applies changed and removed items with what changed', async () => {
    await store.push(valid());
    const next = valid((c) => {
      c.jobs[0].schedule = '0 0 * * * *';
      c.jobs[0].priority = 'high';
      c.connections.pop();
      c.connections.push({ name: 'erp2', type: 'postgres', settings: { host: 'db2' } });
      c.jobs[0].target = 'erp2';
    });
    const diff = await store.diff(next);
    expect(diff.connections).toEqual({ added: ['erp2'], changed: [], removed: ['erp'] });
    expect(diff.jobs.changed).toEqual([
      { name: 'crm-to-erp-customers', changes: ['priority: "normal" → "high"', 'schedule: "0 */5 * * * *" → "0 0 * * * *"', 'target: "erp" → "erp2"'] },
    ]);
    await store.push(next);
    expect(await store.pull()).toEqual(next);
  });

  it('writes nothing when the configuration does not validate', async () => {
    await store.push(valid());
    const broken = valid();
    broken.jobs[0] = { ...broken.jobs[0], mapping: 'nope', schedule: 'every minute' };
    broken.connections = [];
    const err = await store.push(broken).catch((e: unknown) => e);
    expect(errorKind(err)).toBe('config');
    // The same error, issue for issue, as validation itself (its wording is tested with the schema).
    const expected = (() => {
      try {
        validateConfig(broken);
      } catch (e) {
        return (e as Error).message;
      }
    })();
    expect((err as Error).message).toBe(expected);
    expect(expected).toMatch(/^jobs: jobs\[0\]\.schedule: /);
    expect(await store.pull()).toEqual(valid());
  });

  it('stores a mapping over 64 KB in parts and rejects one over 1 MB by name, writing nothing', async () => {
    const wide = valid((c) => {
      c.mappings[0].fields = Array.from({ length: 1200 }, (_, i) => ({ target: `field_${i}_${'x'.repeat(60)}`, source: `src_${i}` }));
      (c.mappings[0].target as { key: string[] }).key = ['field_0_' + 'x'.repeat(60)];
    });
    expect(JSON.stringify(wide.mappings[0]).length).toBeGreaterThan(64 * 1024);
    await store.push(wide);
    const row = await (await storage.table('mappings')).get(CONFIG_PARTITION, 'customers');
    expect(row?.properties.DefinitionParts).toBe(encodeJsonProperties(wide.mappings[0]).DefinitionParts);
    expect(row?.properties.DefinitionParts).toBeGreaterThan(2);
    expect(await store.pull()).toEqual(wide);

    const huge = valid((c) => {
      c.mappings[0].fields = Array.from({ length: 6000 }, (_, i) => ({ target: `field_${i}_${'y'.repeat(80)}`, source: `src_${i}` }));
      (c.mappings[0].target as { key: string[] }).key = ['field_0_' + 'y'.repeat(80)];
      c.jobs[0].schedule = '0 0 * * * *';
    });
    await expect(store.push(huge)).rejects.toThrow(/^mapping "customers" is too large to store: \d+ bytes, over the Table Storage limit of 1048576 bytes \(1 MiB\) per entity$/);
    expect(await store.pull()).toEqual(wide);
  });

  it('names the table and path when the stored configuration is invalid', async () => {
    const table = await storage.table('jobs');
    await table.upsert({ partitionKey: CONFIG_PARTITION, rowKey: 'hand-edited', properties: encodeJsonProperties({ name: 'hand-edited', schedule: 5 }) });
    await expect(store.pull()).rejects.toThrow(/^jobs: jobs\["hand-edited"\]\.schedule: /m);
    await table.delete(CONFIG_PARTITION, 'hand-edited');
  });
});

describe('writeConfigFolder', () => {
  it('writes YAML files that load back to the same configuration, reusing existing file names', async () => {
    const config = valid();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-pull-'));
    dirs.push(dir);
    fs.writeFileSync(path.join(dir, 'jobs.json'), '{"jobs": []}');
    const written = await writeConfigFolder(dir, config);
    expect(written.map((f) => path.basename(f))).toEqual(['connections.yaml', 'mappings.yaml', 'jobs.json']);
    expect(fs.readdirSync(dir).sort()).toEqual(['connections.yaml', 'jobs.json', 'mappings.yaml']);
    expect(await loadConfigFolder(dir)).toEqual(config);
    expect(fs.readFileSync(path.join(dir, 'connections.yaml'), 'utf8')).toContain('password: ERP_PASSWORD');
  });

  it('round-trips a fixture folder through push and pull into a new folder', async () => {
    const source = writeConfigDir();
    const target = path.join(os.tmpdir(), `hw-pulled-${process.pid}-${Date.now()}`);
    dirs.push(source, target);
    const loaded = await loadConfigFolder(source);
    await store.push(loaded);
    await writeConfigFolder(target, await store.pull());
    expect(await loadConfigFolder(target)).toEqual(loaded);
  });
});
