import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LOCK_FILE_NAME } from '../../src/platform/data-dir-lock';
import { writeConfigDir } from '../integration/config/config-fixture';
import { TsChild } from './convergence/support/child-process';

/**
 * Two hosts on one data folder shared its bus and tables, took each other's messages and logged
 * runs as "Failed" that had succeeded. Real `highwater start` processes: the second one on the
 * folder exits non-zero with a message naming the first; once the first is killed (its lock
 * left behind, stale), the next host takes the folder over.
 */
describe('one host per data folder', () => {
  let root: string;
  let configDir: string;
  const children: TsChild[] = [];

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-host-lock-'));
    configDir = writeConfigDir({
      connections: [
        { name: 'a', type: 'sqlite', settings: { file: path.join(root, 'a.db') } },
        { name: 'b', type: 'sqlite', settings: { file: path.join(root, 'b.db') } },
      ],
      mappings: [{ name: 'm', source: { entity: 's', key: ['id'] }, target: { entity: 't', key: ['id'] }, fields: [{ target: 'id', source: 'id' }] }],
      jobs: [{ name: 'j', schedule: '0 0 0 1 1 *', source: 'a', target: 'b', mapping: 'm', watermark: { type: 'number', field: 'v' } }],
    });
  });
  afterAll(async () => {
    await Promise.all(children.map((c) => c.kill()));
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(configDir, { recursive: true, force: true });
  });

  const dataDir = () => path.join(root, 'data');
  const host = (name: string) => {
    const env = { HIGHWATER_DATA_DIR: dataDir(), HIGHWATER_LOCAL_TABLES: 'sqlite', AzureWebJobsStorage: '', GetChangesSchedule: '0 0 0 1 1 *' };
    const child = TsChild.start('test/e2e/convergence/support/host-child.ts', ['--config', configDir], env, path.join(root, `${name}.log`));
    children.push(child);
    return child;
  };

  it('refuses a second host, and takes over the lock of a killed one', async () => {
    const first = host('first');
    await first.waitFor(/Highwater local host on http:\/\/127\.0\.0\.1:\d+/, 60_000);
    expect(JSON.parse(fs.readFileSync(path.join(dataDir(), LOCK_FILE_NAME), 'utf8')).pid).toBe(first.pid);

    const second = host('second');
    expect(await second.exited).toEqual({ code: 1, signal: null });
    const log = fs.readFileSync(path.join(root, 'second.log'), 'utf8');
    expect(log).toContain(`error: data folder ${dataDir()} is in use by another highwater host (pid ${first.pid}, started `);
    expect(log).not.toContain('Highwater local host on');
    expect(first.running).toBe(true);

    await first.kill();
    expect(fs.existsSync(path.join(dataDir(), LOCK_FILE_NAME))).toBe(true);
    const third = host('third');
    await third.waitFor(/Highwater local host on/, 60_000);
    expect(JSON.parse(fs.readFileSync(path.join(dataDir(), LOCK_FILE_NAME), 'utf8')).pid).toBe(third.pid);
    expect(await third.stop()).toEqual({ code: 0, signal: null });
    expect(fs.existsSync(path.join(dataDir(), LOCK_FILE_NAME))).toBe(false);
  }, 120_000);
});
