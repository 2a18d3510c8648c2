import fs from 'node:fs';
import path from 'node:path';
import { applyLocalHostGcFlags, LOCAL_HOST_V8_FLAGS } from '../../../src/host/gc-flags';

describe('the local host’s V8 flags', () => {
  it('npm start passes every one of them on node’s command line', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')) as { scripts: Record<string, string> };
    const node = pkg.scripts.start.split(' dist/')[0].split(' ');
    expect(node).toEqual(['node', ...LOCAL_HOST_V8_FLAGS]);
  });

  it('applies the old-generation flag to a process started without it (the highwater bin)', () => {
    const set: string[] = [];
    expect(applyLocalHostGcFlags(['--enable-source-maps'], (flag) => set.push(flag))).toEqual(['--heap-growing-percent=25']);
    expect(set).toEqual(['--heap-growing-percent=25']);
  });

  it.each([[['--heap-growing-percent=50']], [['--heap_growing_percent', '10']], [['--max-semi-space-size=8', '--heap-growing-percent=25']]])(
    'leaves a flag the process was started with alone (%j)',
    (execArgv) => {
      const set: string[] = [];
      expect(applyLocalHostGcFlags(execArgv, (flag) => set.push(flag))).toEqual([]);
      expect(set).toEqual([]);
    },
  );
});
