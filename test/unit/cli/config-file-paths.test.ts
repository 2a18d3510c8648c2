import path from 'node:path';
import { rebaseFilePaths, resolveFilePaths } from '../../../src/cli/commands/config-file-paths';
import type { HighwaterConfig } from '../../../src/model/config';

/** File paths keep naming the same file when configuration moves between folders and tables. */
describe('config file paths', () => {
  const config = (file: string): HighwaterConfig =>
    ({
      connections: [
        { name: 'crm', type: 'sqlite', settings: { file }, secrets: {} },
        { name: 'erp', type: 'postgres', settings: { host: 'db', file: 'not-a-path-here' }, secrets: {} },
      ],
      mappings: [],
      jobs: [],
    }) as unknown as HighwaterConfig;
  const fileOf = (c: HighwaterConfig, i = 0) => c.connections[i].settings.file;

  it('push resolves a relative path against the config folder, and only SQLite files', () => {
    const resolved = resolveFilePaths(config('./crm.db'), '/srv/cfg');
    expect(fileOf(resolved)).toBe(path.resolve('/srv/cfg', 'crm.db'));
    expect(fileOf(resolved, 1)).toBe('not-a-path-here');
  });

  it('pull writes a file inside the target folder relative to it, others absolute', () => {
    expect(fileOf(rebaseFilePaths(config('/srv/cfg/data/crm.db'), '/srv/cfg', '/'))).toBe('./data/crm.db');
    expect(fileOf(rebaseFilePaths(config('/srv/other/crm.db'), '/srv/cfg', '/'))).toBe('/srv/other/crm.db');
  });

  it('pull takes a relative path stored before push resolved them as the host does: from the working folder', () => {
    // The host reading the tables opens `./crm.db` in its working folder, /home/u.
    expect(fileOf(rebaseFilePaths(config('./crm.db'), 'pulled', '/home/u'))).toBe('/home/u/crm.db');
    expect(fileOf(rebaseFilePaths(config('pulled/x/crm.db'), 'pulled', '/home/u'))).toBe('./x/crm.db');
  });

  it('leaves the input unchanged', () => {
    const original = config('./crm.db');
    resolveFilePaths(original, '/srv/cfg');
    expect(fileOf(original)).toBe('./crm.db');
  });
});
