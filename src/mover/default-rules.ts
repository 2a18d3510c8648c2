import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The mover's default rules (`default-rules.yaml`, used when no rules file is given): the
 * command line, the status page's dry run and the scheduled requeue read the same file.
 */

/**
 * The default rules file: next to this module (sources), or in the package's `src/mover` folder
 * when running from `dist/` (the build compiles TypeScript only; the YAML stays in the sources,
 * which the package and the Functions deployment both ship).
 */
export function defaultRulesFile(): string {
  const candidates = [path.join(__dirname, 'default-rules.yaml'), path.resolve(__dirname, '../../../src/mover/default-rules.yaml')];
  return candidates.find((file) => existsSync(file)) ?? candidates[0];
}

/** How reports name a rules file: relative to `cwd` when it is inside it, else its absolute path. */
export function rulesFileLabel(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative.startsWith('..') ? file : relative;
}
