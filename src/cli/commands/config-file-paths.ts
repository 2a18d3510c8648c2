import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Connection } from '../../model/connection';
import type { HighwaterConfig } from '../../model/config';

/**
 * Connection settings that name a file. A relative path is relative to the config folder it was
 * written in (`connectors/sql/sql-connectors.ts` resolves it against the folder), so it means
 * nothing once the configuration leaves that folder:
 * - `config push` stores such paths resolved (absolute): a host or `highwater run` that reads the
 *   tables finds the same file from any working folder;
 * - `config pull DIR` writes them so that, read from DIR, they name the same file: relative to
 *   DIR when the file is inside DIR, else absolute (a `../../..` chain helps no one). A relative
 *   path already in the tables (pushed before push resolved them) is taken as the host takes it,
 *   relative to the working folder.
 * Only SQLite names a file today (`settings.file`); other connectors reach servers.
 */
const FILE_SETTINGS: Readonly<Record<string, readonly string[]>> = { sqlite: ['file'] };

/** One file a connection names. */
interface NamedFile {
  /** Position in `config.connections` (for `connections[i]` paths). */
  index: number;
  connection: string;
  setting: string;
  /** As written in the configuration. */
  value: string;
}

/** Every file setting of the configuration, in connection order. */
function namedFiles(config: Pick<HighwaterConfig, 'connections'>): NamedFile[] {
  const files: NamedFile[] = [];
  config.connections.forEach((connection, index) => {
    for (const setting of FILE_SETTINGS[connection.type] ?? []) {
      const value = connection.settings[setting];
      if (typeof value === 'string' && value.trim() !== '') files.push({ index, connection: connection.name, setting, value });
    }
  });
  return files;
}

/** `config` with every file setting replaced by `rewrite(value)` (the input is not changed). */
function withFiles(config: HighwaterConfig, rewrite: (value: string) => string): HighwaterConfig {
  const connections = config.connections.map((connection): Connection => {
    const settings = FILE_SETTINGS[connection.type];
    if (!settings) return connection;
    const next = { ...connection.settings };
    for (const setting of settings) {
      const value = next[setting];
      if (typeof value === 'string' && value !== '') next[setting] = rewrite(value);
    }
    return { ...connection, settings: next };
  });
  return { ...config, connections };
}

/** What `config push` stores: relative file paths resolved against the folder they were read from. */
export function resolveFilePaths(config: HighwaterConfig, configDir: string): HighwaterConfig {
  return withFiles(config, (value) => path.resolve(configDir, value));
}

/** What `config pull` writes into `targetDir`: each path naming the same file as it did in the tables. */
export function rebaseFilePaths(config: HighwaterConfig, targetDir: string, cwd = process.cwd()): HighwaterConfig {
  const target = path.resolve(cwd, targetDir);
  return withFiles(config, (value) => {
    const file = path.resolve(cwd, value);
    const relative = path.relative(target, file);
    const inside = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
    if (inside) return `./${relative.split(path.sep).join('/')}`;
    return path.isAbsolute(value) ? value : file;
  });
}

/** A file setting whose file does not exist, as `config validate` warns about it. */
export interface MissingFile extends NamedFile {
  /** The path the connector would open. */
  resolved: string;
}

/** File settings of a config folder whose file is not there (the SQLite connector does not create one). */
export function missingFiles(config: Pick<HighwaterConfig, 'connections'>, configDir: string): MissingFile[] {
  return namedFiles(config)
    .map((f) => ({ ...f, resolved: path.resolve(configDir, f.value) }))
    .filter((f) => !existsSync(f.resolved));
}
