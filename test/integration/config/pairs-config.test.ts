import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CONFIG_PARTITION, ConfigStore, writeConfigFolder } from '../../../src/config/config-store';
import { loadConfigFolder } from '../../../src/config/load-config';
import { ConfigValidationError } from '../../../src/platform/config-issue';
import { encodeJsonProperties } from '../../../src/storage/entity-codec';
import { openTableStorage } from '../../../src/storage/table-client-factory';
import type { TableStorage } from '../../../src/storage/table-store';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';
import { writeConfigDir } from './config-fixture';

/** The design's example (docs/two-way.md), as a user writes it. */
const PAIRS_YAML = `pairs:
  - name: accounts
    schedule: "*/30 * * * * *"
    a: { connection: crm, entity: accounts,  key: [account_no],  watermark: { type: datetime, field: modified_at } }
    b: { connection: erp, entity: customers, key: [customer_no], watermark: { type: datetime, field: changed_at } }
    fields:
      - { a: account_no, b: customer_no }
      - { a: name, b: company_name }
      - { a: status, b: state, toB: [{ op: valueMap, map: { A: active, I: inactive } }] }
      - { a: email, b: mail, direction: toB, toB: [{ op: lower }] }
      - { a: credit_limit, b: credit_limit, direction: toA, conflict: b }
    conflicts: newest
    deletes: propagate
    match: [{ a: email, b: mail, ignoreCase: true }]
`;

let azurite: TestAzurite;
let storage: TableStorage;
const dirs: string[] = [];

/** The fixture folder (two connections, a mapping, a job) plus `pairs.yaml`. */
function folderWithPairs(text = PAIRS_YAML, file = 'pairs.yaml'): string {
  const dir = writeConfigDir();
  dirs.push(dir);
  fs.writeFileSync(path.join(dir, file), text);
  return dir;
}

async function issuesOf(promise: Promise<unknown>): Promise<Array<[string, string, string]>> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ConfigValidationError)) throw new Error(`expected a ConfigValidationError, got ${String(err)}`);
  return err.issues.map((issue) => [issue.file, issue.path, issue.message]);
}

beforeAll(async () => {
  azurite = await startTestAzurite();
  storage = await openTableStorage({ storageConnectionString: azurite.connectionString, dataDir: os.tmpdir() });
});

afterAll(async () => {
  await storage?.close();
  await azurite?.stop();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('a config folder with pairs.yaml', () => {
  it('loads the pair and its two jobs and mappings beside the hand-written ones', async () => {
    const config = await loadConfigFolder(folderWithPairs());
    expect(config.pairs.map((p) => p.name)).toEqual(['accounts']);
    expect(config.jobs.map((j) => [j.name, j.source, j.target, j.pair?.side])).toEqual([
      ['crm-to-erp-customers', 'crm', 'erp', undefined],
      ['accounts.a-to-b', 'crm', 'erp', 'a'],
      ['accounts.b-to-a', 'erp', 'crm', 'b'],
    ]);
    expect(config.mappings.map((m) => m.name)).toEqual(['customers', 'accounts.a-to-b', 'accounts.b-to-a']);
  });

  it('is optional, and names the pairs file and path of each issue', async () => {
    const plain = writeConfigDir();
    dirs.push(plain);
    expect((await loadConfigFolder(plain)).pairs).toEqual([]);
    const broken = PAIRS_YAML.replace('connection: erp', 'connection: erq').replace('{ op: lower }', '{ op: lower }, { op: trim }').replace('direction: toB, ', '');
    expect(await issuesOf(loadConfigFolder(folderWithPairs(broken, 'pairs.yml')))).toEqual([
      ['pairs.yml', 'pairs[0].b.connection', 'unknown connection "erq" (known: crm, erp)'],
      ['pairs.yml', 'pairs[0].fields[3].toB', 'operation "lower" has no inverse: make the field one-way (direction "toB") or remove the operation'],
    ]);
  });

  it('refuses two pairs files and a wrong top level', async () => {
    const dir = folderWithPairs();
    fs.writeFileSync(path.join(dir, 'pairs.json'), '{"pairs": []}');
    expect(await issuesOf(loadConfigFolder(dir))).toEqual([[dir, '', 'more than one pairs file (pairs.json, pairs.yaml); keep exactly one']]);
    expect(await issuesOf(loadConfigFolder(folderWithPairs('pair: []\n')))).toEqual([
      ['pairs.yaml', 'pair', 'unknown property; did you mean pairs?'],
      ['pairs.yaml', 'pairs', 'required'],
    ]);
  });
});

describe('pairs in the configuration tables', () => {
  let store: ConfigStore;

  beforeAll(() => {
    store = new ConfigStore(storage);
  });

  beforeEach(async () => {
    await store.push({ connections: [], mappings: [], jobs: [], pairs: [] });
  });

  it('stores the pair, not its expansion; pulls, diffs and writes it back as a pair', async () => {
    const config = await loadConfigFolder(folderWithPairs());
    const pushed = await store.push(config);
    expect(pushed.jobs).toEqual({ added: ['crm-to-erp-customers'], changed: [], removed: [] });
    expect(pushed.mappings).toEqual({ added: ['customers'], changed: [], removed: [] });
    expect(pushed.pairs).toEqual({ added: ['accounts'], changed: [], removed: [] });
    const raw = await store.read();
    expect(raw.jobs).toHaveLength(1);
    expect(raw.pairs).toEqual([JSON.parse(JSON.stringify(config.pairs[0]))]);
    expect(await store.pull()).toEqual(config);
    const empty = { added: [], changed: [], removed: [] };
    expect(await store.diff(config)).toEqual({ connections: empty, mappings: empty, jobs: empty, pairs: empty });

    const changed = await loadConfigFolder(folderWithPairs(PAIRS_YAML.replace('deletes: propagate', 'deletes: uncouple')));
    expect((await store.diff(changed)).pairs).toEqual({ added: [], changed: [{ name: 'accounts', changes: ['deletes: "propagate" → "uncouple"'] }], removed: [] });

    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-pairs-pull-'));
    dirs.push(out);
    const written = await writeConfigFolder(out, await store.pull());
    expect(written.map((file) => path.basename(file))).toEqual(['connections.yaml', 'mappings.yaml', 'jobs.yaml', 'pairs.yaml']);
    expect(await loadConfigFolder(out)).toEqual(config);

    const { connections, mappings, jobs } = config;
    const removed = await store.push({ connections, mappings: mappings.filter((m) => m.name === 'customers'), jobs: jobs.filter((j) => !j.pair), pairs: [] });
    expect(removed.pairs).toEqual({ added: [], changed: [], removed: ['accounts'] });
    expect((await store.pull()).jobs.map((j) => j.name)).toEqual(['crm-to-erp-customers']);
  });

  it('writes no pairs file for a configuration without pairs', async () => {
    const plain = writeConfigDir();
    dirs.push(plain);
    await store.push(await loadConfigFolder(plain));
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-pairs-pull-'));
    dirs.push(out);
    const written = await writeConfigFolder(out, await store.pull());
    expect(written.map((file) => path.basename(file))).toEqual(['connections.yaml', 'mappings.yaml', 'jobs.yaml']);
  });

  it('names the stored pair of an issue by its row', async () => {
    await store.push(await loadConfigFolder(folderWithPairs()));
    const table = await storage.table('pairs');
    const stored = (await store.read()).pairs![0] as { b: Record<string, unknown> };
    stored.b.connection = 'gone';
    await table.upsert({ partitionKey: CONFIG_PARTITION, rowKey: 'accounts', properties: encodeJsonProperties(stored) });
    expect(await issuesOf(store.pull())).toEqual([['pairs', 'pairs["accounts"].b.connection', 'unknown connection "gone" (known: crm, erp)']]);
  });
});
