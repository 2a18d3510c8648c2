import type { z } from 'zod';
import type { Connection } from '../model/connection';
import type { HighwaterConfig } from '../model/config';
import type { Job } from '../model/job';
import type { Mapping } from '../model/mapping';
import type { Pair } from '../model/pair';
import { ConfigValidationError, type ConfigIssue } from '../platform/config-issue';
import { checkCrossReferences, collectNames, type CrossReferenceIssue, type KindEntries } from './cross-references';
import { findLiteralSecrets } from '../platform/literal-secrets';
import { outboxJobIssues } from './outbox-job-rules';
import { addPairs } from './pair-validation';
import { CONFIG_KINDS, ITEM_SCHEMAS, type ConfigKind } from './schema';
import { configErrorMessage, describeType, toConfigIssues } from './zod-issues';

/**
 * Checks a connection's settings for its connector kind. Paths are relative to the connection,
 * e.g. `settings.database`. Receives secret *references* (app setting names), never values.
 */
export interface ConnectionTypeValidator {
  (settings: Record<string, unknown>, secrets: Record<string, string>): Array<{ path: string; message: string }>;
  /**
   * Checks a job whose source is a connection of the type (what the type cannot do, e.g. change
   * tracking a system does not offer). Paths are relative to the job, e.g. `watermark.field`.
   * Default: none.
   */
  sourceJob?: (job: Job) => Array<{ path: string; message: string }>;
}

export interface ValidateOptions {
  /**
   * Known connector kinds. When given, `connection.type` must be one of its keys and that
   * validator runs on the connection; when absent (default), any type is accepted.
   */
  connectionTypes?: Record<string, ConnectionTypeValidator>;
}

export interface ValidateConfigOptions extends ValidateOptions {
  /** Names used as `file` in issues. Default `connections`, `mappings`, `jobs`, `pairs` (the table names). */
  files?: Partial<Record<ConfigKind, string>>;
}

/**
 * Per kind: its list of raw entries, or undefined when it could not be read (already reported).
 * `pairs` is optional: absent means none.
 */
export type ConfigEntries = Record<Exclude<ConfigKind, 'pairs'>, readonly unknown[] | undefined> & { pairs?: readonly unknown[] | undefined };

const DEFAULT_FILES: Record<ConfigKind, string> = { connections: 'connections', mappings: 'mappings', jobs: 'jobs', pairs: 'pairs' };

function parseEntries<T>(kind: ConfigKind, file: string, raw: readonly unknown[] | undefined, issues: ConfigIssue[]): Array<{ index: number; value: T }> {
  const parsed: Array<{ index: number; value: T }> = [];
  (raw ?? []).forEach((item, index) => {
    const result = (ITEM_SCHEMAS[kind] as z.ZodType).safeParse(item, { error: configErrorMessage });
    if (result.success) parsed.push({ index, value: result.data as T });
    else issues.push(...toConfigIssues(file, [kind, index], result.error));
  });
  return parsed;
}

function checkConnections(
  raw: readonly unknown[],
  parsed: Array<{ index: number; value: Connection }>,
  file: string,
  options: ValidateOptions,
  issues: ConfigIssue[],
): void {
  // Literal secrets already reported, as `path\nmessage`: connectors report the secret settings
  // they know with the same words (`secretSettingProblem`), and one secret is one issue.
  const secretIssues = new Set<string>();
  // On the raw input, so that a literal secret is reported even when the entry has other errors.
  raw.forEach((item, index) => {
    const settings = item !== null && typeof item === 'object' ? (item as { settings?: unknown }).settings : undefined;
    if (settings === null || typeof settings !== 'object' || Array.isArray(settings)) return;
    for (const problem of findLiteralSecrets(settings as Record<string, unknown>)) {
      const path = `connections[${index}].${problem.path}`;
      secretIssues.add(`${path}\n${problem.message}`);
      issues.push({ file, path, message: problem.message });
    }
  });
  const types = options.connectionTypes;
  if (!types) return;
  const known = Object.keys(types).sort().join(', ');
  for (const { index, value: connection } of parsed) {
    const at = `connections[${index}]`;
    const validator = Object.prototype.hasOwnProperty.call(types, connection.type) ? types[connection.type] : undefined;
    if (!validator) {
      issues.push({ file, path: `${at}.type`, message: `unknown connection type "${connection.type}" (known: ${known})` });
      continue;
    }
    for (const problem of validator(connection.settings, connection.secrets)) {
      const path = problem.path === '' ? at : `${at}.${problem.path}`;
      if (!secretIssues.has(`${path}\n${problem.message}`)) issues.push({ file, path, message: problem.message });
    }
  }
}

/** Each job against what its source connection's type can do ({@link ConnectionTypeValidator.sourceJob}). */
function checkSourceJobs(
  connections: Array<{ index: number; value: Connection }>,
  jobs: Array<{ index: number; value: Job }>,
  file: string,
  options: ValidateOptions,
  issues: ConfigIssue[],
): void {
  const types = options.connectionTypes;
  if (!types) return;
  const typeOf = new Map<string, string>();
  for (const { value } of connections) if (!typeOf.has(value.name)) typeOf.set(value.name, value.type);
  for (const { index, value: job } of jobs) {
    const type = typeOf.get(job.source);
    const check = type !== undefined && Object.prototype.hasOwnProperty.call(types, type) ? types[type].sourceJob : undefined;
    for (const problem of check?.(job) ?? []) issues.push({ file, path: `jobs[${index}].${problem.path}`, message: problem.message });
  }
}

/** Sets `issue.entry` to the name of the entry its path points into, when that entry has a string name. */
function nameEntry(issue: ConfigIssue, entries: ConfigEntries): void {
  const match = /^(connections|mappings|jobs|pairs)\[(\d+)\]/.exec(issue.path);
  if (!match) return;
  const item = entries[match[1] as ConfigKind]?.[Number(match[2])];
  const name = item !== null && typeof item === 'object' ? (item as { name?: unknown }).name : undefined;
  if (typeof name === 'string' && name.trim() !== '') issue.entry = name;
}

function entryIndex(issue: ConfigIssue): number {
  const match = /^[a-z]+\[(\d+)\]/.exec(issue.path);
  return match ? Number(match[1]) : -1;
}

/**
 * Every issue of a configuration, in file order and, within a file, in entry order. Kinds that
 * are undefined count as unreadable: their entries are not checked and references to them are
 * not reported as unknown.
 */
export function collectConfigIssues(entries: ConfigEntries, options: ValidateConfigOptions = {}): { issues: ConfigIssue[]; config: HighwaterConfig } {
  const files = { ...DEFAULT_FILES, ...options.files };
  const issues: ConfigIssue[] = [];
  const crossIssues: CrossReferenceIssue[] = [];
  const entriesOf = <T>(kind: ConfigKind): KindEntries<T> => ({
    available: entries[kind] !== undefined,
    names: collectNames(kind, entries[kind] ?? [], crossIssues),
    parsed: parseEntries<T>(kind, files[kind], entries[kind], issues),
  });
  const connections = entriesOf<Connection>('connections');
  const mappings = entriesOf<Mapping>('mappings');
  const jobs = entriesOf<Job>('jobs');
  const pairs = entriesOf<Pair>('pairs');
  // After the pairs' own checks, their jobs and mappings join the hand-written ones for the rest.
  const paired = addPairs({ connections, mappings, jobs, pairs }, { jobs: entries.jobs?.length ?? 0, mappings: entries.mappings?.length ?? 0 });
  crossIssues.push(...paired.issues);
  checkConnections(entries.connections ?? [], connections.parsed, files.connections, options, issues);
  checkSourceJobs(connections.parsed, jobs.parsed, files.jobs, options, issues);
  crossIssues.push(...checkCrossReferences({ connections, mappings, jobs }), ...outboxJobIssues(connections, jobs));
  for (const issue of crossIssues) issues.push({ file: files[issue.kind], path: issue.path, message: issue.message });
  issues.splice(0, issues.length, ...issues.map((issue) => paired.relocate(issue, files)));
  const fileOrder = (issue: ConfigIssue) => CONFIG_KINDS.findIndex((kind) => files[kind] === issue.file);
  issues.sort((a, b) => fileOrder(a) - fileOrder(b) || entryIndex(a) - entryIndex(b));
  for (const issue of issues) nameEntry(issue, entries);
  const values = <T>(kind: KindEntries<T>) => kind.parsed.map((entry) => entry.value);
  return { issues, config: { connections: values(connections), mappings: values(mappings), jobs: values(jobs), pairs: values(pairs) } };
}

/**
 * Validates configuration that arrives as lists (from tables or tests) and fills defaults.
 * Throws a {@link ConfigValidationError} listing every issue.
 */
export function validateConfig(
  input: { connections: unknown; mappings: unknown; jobs: unknown; pairs?: unknown },
  options: ValidateConfigOptions = {},
): HighwaterConfig {
  const files = { ...DEFAULT_FILES, ...options.files };
  const listIssues: ConfigIssue[] = [];
  const asList = (kind: ConfigKind): readonly unknown[] | undefined => {
    const value = input[kind];
    if (Array.isArray(value)) return value;
    listIssues.push({ file: files[kind], path: kind, message: `expected a list, got ${describeType(value)}` });
    return undefined;
  };
  const entries: ConfigEntries = {
    connections: asList('connections'),
    mappings: asList('mappings'),
    jobs: asList('jobs'),
    // Optional: a configuration without pairs has none.
    pairs: input.pairs === undefined ? [] : asList('pairs'),
  };
  const { issues, config } = collectConfigIssues(entries, { ...options, files });
  const all = [...listIssues, ...issues];
  if (all.length > 0) throw new ConfigValidationError(all);
  return config;
}
