import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUILD_DATA_FILES, copyBuildDataFiles } from '../../../../tools/build/data-files';
import { defaultRulesFile } from '../../../../src/mover/default-rules';

const ROOT = path.resolve(__dirname, '../../../..');

describe('the build’s data files', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-build-data-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('lists the mover’s default rules, which the mover reads next to its module', () => {
    expect(BUILD_DATA_FILES).toEqual(['src/mover/default-rules.yaml']);
    expect(defaultRulesFile()).toBe(path.join(ROOT, 'src/mover/default-rules.yaml'));
  });

  it('copies each file to the same place under dist/, creating its folders', () => {
    const dist = path.join(dir, 'dist');
    expect(copyBuildDataFiles(ROOT, dist)).toEqual([path.join(dist, 'src/mover/default-rules.yaml')]);
    expect(fs.readFileSync(path.join(dist, 'src/mover/default-rules.yaml'), 'utf8')).toBe(fs.readFileSync(path.join(ROOT, 'src/mover/default-rules.yaml'), 'utf8'));
  });

  it('names the file a project lacks', () => {
    const project = path.join(dir, 'project');
    fs.mkdirSync(project);
    expect(() => copyBuildDataFiles(project, path.join(dir, 'dist'))).toThrow(
      `${path.join(project, 'src/mover/default-rules.yaml')} is missing: the build copies it into ${path.join(dir, 'dist')}`,
    );
  });
});
