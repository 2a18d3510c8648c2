import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * After `git clean -xfd && npm run build`, `npx dead-letter-mover --help` said
 * "Permission denied" (tsc writes files without the run bit). The build script's steps after
 * `tsc` run here on stand-ins for the compiled bins (tsc itself is not what is under test).
 */
const ROOT = path.resolve(__dirname, '../../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };

it('npm run build makes every bin in package.json executable', () => {
  const [compile, ...after] = pkg.scripts.build.split(' && ');
  expect(compile).toBe('tsc -p tsconfig.build.json');
  expect(after.length).toBeGreaterThan(0);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-bins-'));
  try {
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
    for (const bin of Object.values(pkg.bin)) {
      fs.mkdirSync(path.join(dir, path.dirname(bin)), { recursive: true });
      fs.writeFileSync(path.join(dir, bin), '#!/usr/bin/env node\n', { mode: 0o644 });
    }
    execSync(after.join(' && '), { cwd: dir, stdio: 'pipe' });
    for (const bin of Object.values(pkg.bin)) expect((fs.statSync(path.join(dir, bin)).mode & 0o777).toString(8)).toBe('755');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
