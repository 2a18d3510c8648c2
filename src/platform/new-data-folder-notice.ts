import { existsSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The data folder is resolved against the working folder (`.data` unless `HIGHWATER_DATA_DIR`
 * says otherwise), so a command run from a subfolder of the project silently made a second, empty
 * data folder there — and started a second Azurite on it. Before a local part (bus, tables, host
 * lock) creates a data folder, this says which folder it uses when the project has one already.
 */

/** What only a Highwater data folder holds: the local bus, the local tables, Azurite's data, the host's lock, the metrics. */
const MARKERS = ['bus.sqlite', 'tables.db', 'azurite', 'host.lock', 'metrics'];

/**
 * The nearest existing Highwater data folder of the same name in a folder above `dataDir`'s
 * (`/p/.data` for `/p/config/.data`), or undefined.
 */
export function existingDataFolderAbove(dataDir: string): string | undefined {
  const absolute = path.resolve(dataDir);
  const name = path.basename(absolute);
  let at = path.dirname(absolute);
  for (;;) {
    const parent = path.dirname(at);
    if (parent === at) return undefined;
    at = parent;
    const candidate = path.join(at, name);
    if (isFolder(candidate) && MARKERS.some((marker) => existsSync(path.join(candidate, marker)))) return candidate;
  }
}

/**
 * The line to say before `dataDir` is created, or undefined: when it exists already, or when no
 * data folder of the project lies above it.
 */
export function newDataFolderNotice(dataDir: string): string | undefined {
  const absolute = path.resolve(dataDir);
  if (existsSync(absolute)) return undefined;
  const existing = existingDataFolderAbove(absolute);
  if (!existing) return undefined;
  return `note: using a new data folder ${absolute}; ${existing} holds this project's data: to use it, run from ${path.dirname(existing)} or set HIGHWATER_DATA_DIR=${existing}`;
}

const said = new Set<string>();

/** Says {@link newDataFolderNotice} on stderr, once per folder and process. */
export function sayWhenNewDataFolder(dataDir: string, write: (line: string) => void = (line) => console.error(line)): void {
  const absolute = path.resolve(dataDir);
  if (said.has(absolute)) return;
  const notice = newDataFolderNotice(absolute);
  if (!notice) return;
  said.add(absolute);
  write(notice);
}

function isFolder(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}
