import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { existingDataFolderAbove, newDataFolderNotice, sayWhenNewDataFolder } from '../../../src/platform/new-data-folder-notice';

let project: string;

beforeEach(() => {
  project = mkdtempSync(path.join(os.tmpdir(), 'hw-data-notice-'));
  mkdirSync(path.join(project, 'config', 'deep'), { recursive: true });
});

afterEach(() => rmSync(project, { recursive: true, force: true }));

describe('the notice before a new data folder', () => {
  it('names the new folder, the project\'s existing one, and how to use that one', () => {
    mkdirSync(path.join(project, '.data'));
    writeFileSync(path.join(project, '.data', 'bus.sqlite'), '');
    const fresh = path.join(project, 'config', 'deep', '.data');
    expect(newDataFolderNotice(fresh)).toBe(
      `note: using a new data folder ${fresh}; ${project}/.data holds this project's data: to use it, run from ${project} or set HIGHWATER_DATA_DIR=${project}/.data`,
    );
  });

  it('says nothing for a folder that exists, or with no data folder above', () => {
    expect(newDataFolderNotice(path.join(project, 'config', '.data'))).toBeUndefined();
    mkdirSync(path.join(project, 'config', '.data'));
    writeFileSync(path.join(project, 'config', '.data', 'tables.db'), '');
    expect(newDataFolderNotice(path.join(project, 'config', '.data'))).toBeUndefined();
  });

  it('takes only a folder that holds Highwater data for the project\'s (an empty .data is not one)', () => {
    mkdirSync(path.join(project, '.data'));
    expect(existingDataFolderAbove(path.join(project, 'config', '.data'))).toBeUndefined();
    mkdirSync(path.join(project, '.data', 'azurite'));
    expect(existingDataFolderAbove(path.join(project, 'config', '.data'))).toBe(path.join(project, '.data'));
  });

  it('is said once per folder', () => {
    mkdirSync(path.join(project, '.data'));
    writeFileSync(path.join(project, '.data', 'host.lock'), '');
    const lines: string[] = [];
    sayWhenNewDataFolder(path.join(project, 'config', '.data'), (line) => lines.push(line));
    sayWhenNewDataFolder(path.join(project, 'config', '.data'), (line) => lines.push(line));
    expect(lines).toHaveLength(1);
  });
});
