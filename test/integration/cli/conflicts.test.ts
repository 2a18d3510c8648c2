import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalBus } from '../../../src/bus/local/local-bus';
import { messageIdFor } from '../../../src/bus/message-properties';
import { runCli } from '../../../src/cli/main';
import { ConfigStore } from '../../../src/config/config-store';
import { validateConfig } from '../../../src/config/validate-config';
import { deserializeQueueMessage } from '../../../src/model/queue-message';
import { allQueueNames } from '../../../src/platform/queue-topology';
import { readSettings } from '../../../src/platform/settings';
import { SqliteTableStorage } from '../../../src/storage/sqlite-table-storage';
import type { PairConflict } from '../../../src/twoway/coupling-store';
import { TableCouplingStore } from '../../../src/twoway/table-coupling-store';
import { fixtureConfig, writeConfigDir } from '../config/config-fixture';

/** `highwater conflicts list | resolve` on a local data folder: SQLite tables and the local bus. */

const SAVED = { ...process.env };
let dataDir: string;
let configDir: string;
let out: string[];
let err: string[];

/** The fixture configuration with the two jobs of pair `accounts` (as its expansion names them). */
function pairConfig() {
  const config = fixtureConfig();
  const base = config.jobs[0];
  config.jobs.push({ ...base, name: 'accounts.a-to-b', priority: 'low' }, { ...base, name: 'accounts.b-to-a', priority: 'high' });
  return config;
}

const parked: PairConflict = {
  pair: 'accounts',
  keyA: 'A-100|x',
  keyB: 'C-7',
  fields: ['name', 'status'],
  a: { values: { name: 'Zürich AG', status: 'A' }, tracker: '2026-12-01T10:00:00.000Z' },
  b: { values: { name: 'Zurich Ltd', status: 'I' }, tracker: '2026-12-01T10:00:05.000Z' },
  detectedAt: '2026-12-01T10:01:00.000Z',
};

async function withStore<T>(fn: (store: TableCouplingStore, storage: SqliteTableStorage) => Promise<T>): Promise<T> {
  const storage = SqliteTableStorage.open(dataDir);
  try {
    return await fn(new TableCouplingStore(storage), storage);
  } finally {
    await storage.close();
  }
}

async function peekAll(queue: string) {
  const bus = await LocalBus.open({ dataDir, queues: allQueueNames(readSettings({ HIGHWATER_DATA_DIR: dataDir }).queues) });
  try {
    return await bus.peek(queue);
  } finally {
    await bus.close();
  }
}

beforeEach(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-conflicts-cli-'));
  configDir = writeConfigDir(pairConfig());
  for (const name of ['AzureWebJobsStorage', 'HIGHWATER_TABLES_ENDPOINT', 'ServiceBusConnection', 'ServiceBusConnection__fullyQualifiedNamespace']) delete process.env[name];
  process.env.HIGHWATER_DATA_DIR = dataDir;
  process.env.HIGHWATER_LOCAL_TABLES = 'sqlite';
  await withStore(async (store) => {
    await store.putConflict(parked);
    await store.putConflict({ ...parked, pair: 'contacts', keyA: 'K1', keyB: 'K1', fields: ['email'], b: { values: {}, tracker: null, deleted: true } });
  });
  out = [];
  err = [];
  jest.spyOn(console, 'log').mockImplementation((line: unknown) => void out.push(String(line)));
  jest.spyOn(console, 'error').mockImplementation((line: unknown) => void err.push(String(line)));
  jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (err.push(String(chunk)), true));
});

afterEach(() => {
  jest.restoreAllMocks();
  process.env = { ...SAVED };
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(configDir, { recursive: true, force: true });
});

describe('highwater conflicts list', () => {
  it('prints a table of every parked conflict, ordered by pair and a key', async () => {
    expect(await runCli(['conflicts', 'list'])).toBe(0);
    expect(out).toEqual([
      'pair      a key    b key  fields        a tracker                 b tracker                 detected at               resolution',
      'accounts  A-100|x  C-7    name, status  2026-12-01T10:00:00.000Z  2026-12-01T10:00:05.000Z  2026-12-01T10:01:00.000Z  -',
      'contacts  K1       K1     email         2026-12-01T10:00:00.000Z  -                         2026-12-01T10:01:00.000Z  -',
    ]);
  });

  it('--pair keeps one pair; --json prints the conflicts with both sides\' values', async () => {
    expect(await runCli(['conflicts', 'list', '--pair', 'accounts', '--json'])).toBe(0);
    expect(JSON.parse(out.join('\n'))).toEqual([parked]);
    out.length = 0;
    expect(await runCli(['conflicts', 'list', '--pair', 'orders'])).toBe(0);
    expect(out).toEqual(['no parked conflicts of pair "orders"']);
  });

  it('says so when nothing is parked, and refuses a pair name that cannot be one', async () => {
    await withStore(async (store) => {
      await store.removeConflict('accounts', parked.keyA);
      await store.removeConflict('contacts', 'K1');
    });
    expect(await runCli(['conflicts', 'list'])).toBe(0);
    expect(out).toEqual(['no parked conflicts']);
    expect(await runCli(['conflicts', 'list', '--pair', 'a/b'])).toBe(2);
    expect(err).toEqual([`error: pair name "a/b" contains '/'`]);
  });
});

describe('highwater conflicts resolve', () => {
  it('--take b: records the resolution and sends one sync of the b record to the b-to-a job\'s queue', async () => {
    const before = Date.now();
    expect(await runCli(['conflicts', 'resolve', 'accounts', 'A-100|x', '--take', 'b', '--config', configDir])).toBe(0);
    expect(out).toEqual(['pair accounts, a key A-100|x: side b wins; sent a sync of b key C-7 to sbqhigh (job accounts.b-to-a)']);
    const decided = await withStore((store) => store.getConflict('accounts', 'A-100|x'));
    expect(decided).toEqual({ ...parked, resolution: 'b', resolvedAt: expect.any(String) });
    expect(Date.parse(decided!.resolvedAt!)).toBeGreaterThanOrEqual(before - 1000);
    const sent = await peekAll('sbqhigh');
    expect(sent).toHaveLength(1);
    const message = deserializeQueueMessage(sent[0].body);
    expect(message).toEqual({
      version: 1,
      jobName: 'accounts.b-to-a',
      action: 'NewUpdate',
      sourceKey: 'C-7',
      targetKey: {},
      fields: {},
      changeTracker: '2026-12-01T10:00:05.000Z',
      correlationId: expect.any(String),
      detectedAt: expect.any(String),
    });
    // Not the change's own id: that change was sent when the conflict arose.
    expect(sent[0].messageId).not.toBe(messageIdFor(message));
    expect(await peekAll('sbqlow')).toEqual([]);
    // The other pair's conflict is untouched.
    expect((await withStore((store) => store.getConflict('contacts', 'K1')))?.resolution).toBeUndefined();
  });

  it('--take a: finds the job in the configuration tables and sends the a record with an empty tracker when a had none', async () => {
    await withStore(async (store, storage) => {
      await new ConfigStore(storage).push(validateConfig(pairConfig()));
      await store.putConflict({ ...parked, a: { ...parked.a, tracker: null } });
    });
    expect(await runCli(['conflicts', 'resolve', 'accounts', 'A-100|x', '--take', 'a'])).toBe(0);
    expect(out).toEqual(['pair accounts, a key A-100|x: side a wins; sent a sync of a key A-100|x to sbqlow (job accounts.a-to-b)']);
    const [sent] = await peekAll('sbqlow');
    expect(deserializeQueueMessage(sent.body)).toMatchObject({ jobName: 'accounts.a-to-b', sourceKey: 'A-100|x', changeTracker: '', action: 'NewUpdate' });
    expect((await withStore((store) => store.getConflict('accounts', 'A-100|x')))?.resolution).toBe('a');
  });

  it('refuses a missing or wrong --take, and a record without a parked conflict (exit 2), sending nothing', async () => {
    expect(await runCli(['conflicts', 'resolve', 'accounts', 'A-100|x', '--config', configDir])).toBe(2);
    expect(await runCli(['conflicts', 'resolve', 'accounts', 'A-100|x', '--take', 'both', '--config', configDir])).toBe(2);
    expect(await runCli(['conflicts', 'resolve', 'accounts', 'A-1', '--take', 'a', '--config', configDir])).toBe(2);
    expect(err).toEqual([
      "error: --take is required: a (side a's values win) or b",
      'error: --take must be a or b, got "both"',
      'error: no parked conflict of pair "accounts" for a key "A-1" (`highwater conflicts list --pair accounts` lists them)',
    ]);
    expect((await withStore((store) => store.getConflict('accounts', 'A-100|x')))?.resolution).toBeUndefined();
    expect(await peekAll('sbqhigh')).toEqual([]);
  });

  it('refuses a pair whose job is not configured, leaving the conflict unresolved', async () => {
    expect(await runCli(['conflicts', 'resolve', 'contacts', 'K1', '--take', 'a', '--config', configDir])).toBe(2);
    expect(await runCli(['conflicts', 'resolve', 'contacts', 'K1', '--take', 'b'])).toBe(2);
    expect(err).toEqual([
      `error: job "contacts.a-to-b" of pair "contacts" is not in ${configDir}: the conflict stays unresolved`,
      'error: job "contacts.b-to-a" of pair "contacts" is not in the configuration tables: the conflict stays unresolved; push a config folder with `highwater config push --config DIR`, or pass --config DIR',
    ]);
    expect((await withStore((store) => store.getConflict('contacts', 'K1')))?.resolution).toBeUndefined();
  });
});
