import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The folder of Highwater's own package.json (works from `src/` under jest and from `dist/`). */
export function packageRoot(): string {
  let dir = __dirname;
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'highwater') return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the highwater package root');
    dir = parent;
  }
}

/** Highwater's version, from its package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
