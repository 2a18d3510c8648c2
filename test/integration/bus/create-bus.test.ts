import { existsSync, mkdtempSync, promises as fsp, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createBus, localBusSynchronous } from '../../../src/bus/create-bus';
import { readSettings } from '../../../src/platform/settings';

/** The local bus as `createBus` opens it from the settings, on real files. */
describe('createBus: HIGHWATER_LOCAL_BUS_SYNCHRONOUS', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'highwater-create-bus-'));
  });

  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Files the bus flushed with fdatasync while `work` ran (the WAL sync opens them first). */
  async function walsOpenedDuring(work: () => Promise<void>): Promise<string[]> {
    const open = jest.spyOn(fsp, 'open');
    await work();
    return open.mock.calls.map(([file]) => String(file)).filter((file) => file.endsWith('-wal'));
  }

  async function sendOne(env: NodeJS.ProcessEnv): Promise<void> {
    const bus = await createBus(readSettings({ HIGHWATER_DATA_DIR: dataDir, ...env }));
    try {
      await bus.send('sbqnormal', [{ body: 'one' }]);
    } finally {
      await bus.close();
    }
  }

  it('FULL (any case) makes a send wait for a sync of the bus WAL', async () => {
    const synced = await walsOpenedDuring(() => sendOne({ HIGHWATER_LOCAL_BUS_SYNCHRONOUS: 'full' }));
    expect(synced).toContain(path.join(dataDir, 'bus.sqlite-wal'));
  });

  it('unset or NORMAL never syncs the WAL for a send', async () => {
    expect(await walsOpenedDuring(() => sendOne({}))).toEqual([]);
    expect(await walsOpenedDuring(() => sendOne({ HIGHWATER_LOCAL_BUS_SYNCHRONOUS: 'NORMAL' }))).toEqual([]);
  });

  it('any other value is refused, naming the setting, before a bus file exists', async () => {
    expect(() => readSettings({ HIGHWATER_DATA_DIR: dataDir, HIGHWATER_LOCAL_BUS_SYNCHRONOUS: 'fast' })).toThrow(
      'app settings: HIGHWATER_LOCAL_BUS_SYNCHRONOUS: must be NORMAL or FULL, got "fast"',
    );
    await expect(createBus({ ...readSettings({ HIGHWATER_DATA_DIR: dataDir }), localBusSynchronous: 'fast' })).rejects.toThrow(
      'HIGHWATER_LOCAL_BUS_SYNCHRONOUS: must be NORMAL or FULL, got "fast"',
    );
    expect(existsSync(path.join(dataDir, 'bus.sqlite'))).toBe(false);
    expect(() => localBusSynchronous('OFF')).toThrow(expect.objectContaining({ name: 'BusError', code: 'InvalidArgument' }));
  });
});
