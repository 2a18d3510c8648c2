import path from 'node:path';

/** How to start a worker thread on a script of the project: its file and, where needed, node options. */
export interface WorkerEntry {
  file: string;
  /** Node options of the worker; undefined: the parent's (the `Worker` default). */
  execArgv?: string[];
}

/** `.js` when the project runs from `dist/`, `.ts` when its sources run through the swc register hook. */
const EXT = path.extname(__filename);
/** The hook that lets plain `node` require the TypeScript sources; not built into `dist/`, which needs none. */
const REGISTER = path.join(__dirname, 'swc-register.js');

/** The file of the worker script `name` (no extension) in `dir`, built or source as this file is. */
export function workerScript(dir: string, name: string): string {
  return path.join(dir, `${name}${EXT}`);
}

/**
 * How to start a worker on `file`. The worker inherits the parent's node options (`-r` preloads
 * run in workers too, and so do `--cpu-prof` profiles); under jest, whose transform no worker
 * sees, a `.ts` entry is given the register hook itself.
 */
export function workerEntry(file: string): WorkerEntry {
  if (EXT !== '.ts' || process.execArgv.some((arg) => arg.endsWith('swc-register.js'))) return { file };
  return { file, execArgv: [...process.execArgv, '--require', REGISTER] };
}
