import path from 'node:path';

/**
 * The mover's default rules (`default-rules.yaml`, used when no rules file is given): the
 * command line, the status page's dry run and the scheduled requeue read the same file.
 */

/**
 * The default rules file, next to this module: in the sources, and in `dist/`, where the build
 * copies it (tools/build/data-files.ts).
 */
export function defaultRulesFile(): string {
  return path.join(__dirname, 'default-rules.yaml');
}

/** How reports name a rules file: relative to `cwd` when it is inside it, else its absolute path. */
export function rulesFileLabel(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative.startsWith('..') ? file : relative;
}
