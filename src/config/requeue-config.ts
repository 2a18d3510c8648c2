import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { ConfigValidationError, type ConfigIssue } from '../platform/config-issue';
import { CONFIG_EXTENSIONS, readConfigFile } from './config-files';
import { readRulesFile } from './requeue-rules-schema';
import { requeueFileSchema, type RequeueConfig } from './requeue-schema';
import { configErrorMessage, describeType, toConfigIssues } from './zod-issues';

/**
 * Reading the optional requeue file of a config folder (see `requeue-schema.ts`). Issues name
 * the file and property path like those of the other config files; `config validate` and the
 * local host's start report them together with the rest.
 */

/** The requeue section with its rules file resolved against the config folder. */
export interface LoadedRequeueConfig extends RequeueConfig {
  /** Absolute path of `rules`, when given. */
  rulesFile?: string;
  /** The file it was read from (its basename), for messages. */
  file: string;
}

type Found = { file?: string; issues: ConfigIssue[] };

async function findRequeueFile(dir: string): Promise<Found> {
  const names = new Set(await readdir(dir).catch(() => [] as string[]));
  const present = CONFIG_EXTENSIONS.map((ext) => `requeue${ext}`).filter((name) => names.has(name));
  if (present.length > 1) return { issues: [{ file: dir, path: '', message: `more than one requeue file (${present.join(', ')}); keep exactly one` }] };
  return { file: present[0], issues: [] };
}

/** Validates parsed requeue data; `dir` resolves the rules file. */
export function requeueFromData(data: unknown, file: string, dir: string): { config?: LoadedRequeueConfig; issues: ConfigIssue[] } {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return { issues: [{ file, path: '', message: `expected an object with a top-level "requeue" section, got ${describeType(data)}` }] };
  }
  const result = requeueFileSchema.safeParse(data, { error: configErrorMessage });
  if (!result.success) return { issues: toConfigIssues(file, [], result.error) };
  const { requeue } = result.data;
  const issues: ConfigIssue[] = [];
  let rulesFile: string | undefined;
  if (requeue.rules !== undefined) {
    rulesFile = path.resolve(dir, requeue.rules);
    if (!existsSync(rulesFile)) issues.push({ file, path: 'requeue.rules', message: `rules file not found: ${requeue.rules} (relative to the config folder)` });
  }
  return issues.length > 0 ? { issues } : { config: { ...requeue, rulesFile, file }, issues };
}

/** The issues of the requeue file in `dir` (none when there is no such file). */
export async function requeueFileIssues(dir: string): Promise<ConfigIssue[]> {
  return (await readRequeue(dir)).issues;
}

async function readRequeue(dir: string): Promise<{ config?: LoadedRequeueConfig; issues: ConfigIssue[] }> {
  const found = await findRequeueFile(dir);
  if (found.file === undefined) return { issues: found.issues };
  const parsed = await readConfigFile(dir, found.file);
  if (!parsed.ok) return { issues: [parsed.issue] };
  const result = requeueFromData(parsed.data, found.file, dir);
  const rulesFile = result.config?.rulesFile;
  if (rulesFile === undefined) return result;
  // The rules themselves are checked now, not at the first run hours later.
  try {
    await readRulesFile(rulesFile, result.config?.rules);
    return result;
  } catch (err) {
    return { issues: [{ file: found.file, path: 'requeue.rules', message: `invalid rules file: ${(err as Error).message}` }] };
  }
}

/**
 * The requeue configuration of a config folder, or undefined when it has no requeue file (off).
 * @throws ConfigValidationError listing every issue of the file.
 */
export async function loadRequeueConfig(dir: string): Promise<LoadedRequeueConfig | undefined> {
  const { config, issues } = await readRequeue(dir);
  if (issues.length > 0) throw new ConfigValidationError(issues);
  return config;
}
