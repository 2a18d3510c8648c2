import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** docs/architecture.md names a file for every step of a change's path: each must exist, so a move shows up here. */
const ROOT = resolve(__dirname, '../../..');

describe('docs/architecture.md', () => {
  const text = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const paths = [...new Set([...text.matchAll(/`((?:src|connectors|functions|tools|bench|examples|test)\/[\w./*-]+|\.dependency-cruiser\.cjs)`/g)].map((m) => m[1]))];

  it('names files and folders', () => {
    expect(paths.length).toBeGreaterThan(40);
  });

  it.each(paths.filter((p) => !p.includes('*')))('%s exists', (path) => {
    expect(existsSync(join(ROOT, path))).toBe(true);
  });
});
