import type { HighwaterConfig } from '../model/config';
import { ConfigValidationError, type ConfigIssue } from '../platform/config-issue';
import { findConfigFiles, readConfigFile } from './config-files';
import { requeueFileIssues } from './requeue-config';
import { CONFIG_KINDS, type ConfigKind } from './schema';
import { collectConfigIssues, type ConfigEntries, type ValidateOptions } from './validate-config';
import { unknownPropertyMessage } from './suggest';
import { describeType } from './zod-issues';

/**
 * Loads a config folder: exactly one `connections`, `mappings` and `jobs` file and at most one
 * `pairs` file, each `.json`, `.yaml` or `.yml`, whose top level is `{ <kind>: [...] }` (plus an
 * optional `$schema`).
 */

/** The entries of one parsed file, or undefined (with issues) when its top level is wrong. */
function topLevelEntries(kind: ConfigKind, file: string, data: unknown, issues: ConfigIssue[]): readonly unknown[] | undefined {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    issues.push({ file, path: '', message: `expected an object with a top-level "${kind}" list, got ${describeType(data)}` });
    return undefined;
  }
  const record = data as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (key === kind) continue;
    if (key === '$schema' && typeof record[key] === 'string') continue;
    issues.push({ file, path: key, message: key === '$schema' ? 'expected a string' : unknownPropertyMessage(key, [kind, '$schema']) });
  }
  const list = record[kind];
  if (Array.isArray(list)) return list;
  issues.push({ file, path: kind, message: list === undefined ? 'required' : `expected a list, got ${describeType(list)}` });
  return undefined;
}

/**
 * Reads, validates and fills defaults for the configuration in `dir`. Throws a
 * {@link ConfigValidationError} listing every issue (file basename + property path).
 */
export async function loadConfigFolder(dir: string, options: ValidateOptions = {}): Promise<HighwaterConfig> {
  const { files, issues } = await findConfigFiles(dir, CONFIG_KINDS);
  // No pairs file: no pairs (the other kinds' files are required, their absence already reported).
  const entries: ConfigEntries = { connections: undefined, mappings: undefined, jobs: undefined, pairs: [] };
  for (const kind of CONFIG_KINDS) {
    const file = files[kind];
    if (file === undefined) continue;
    const parsed = await readConfigFile(dir, file);
    if (parsed.ok) entries[kind] = topLevelEntries(kind, file, parsed.data, issues);
    else issues.push(parsed.issue);
  }
  const names: Record<ConfigKind, string> = {
    connections: files.connections ?? 'connections',
    mappings: files.mappings ?? 'mappings',
    jobs: files.jobs ?? 'jobs',
    pairs: files.pairs ?? 'pairs',
  };
  const result = collectConfigIssues(entries, { ...options, files: names });
  const fileOrder = (issue: ConfigIssue) => CONFIG_KINDS.findIndex((kind) => names[kind] === issue.file);
  // Stable: folder issues first, then per file its top-level issues before its entries' issues.
  const all = [...issues, ...result.issues].sort((a, b) => fileOrder(a) - fileOrder(b));
  // The optional requeue file: checked with the rest, so that `config validate` and the host's start report it.
  all.push(...(await requeueFileIssues(dir)));
  if (all.length > 0) throw new ConfigValidationError(all);
  return result.config;
}
