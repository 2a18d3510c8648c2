import type { HighwaterConfig } from '../model/config';
import { formatPath, type PathSegment } from '../platform/config-issue';
import { withoutExpansion } from './pair-expansion';
import { CONFIG_KINDS, type ConfigKind } from './schema';

/** One item present on both sides with a different definition. */
export interface ChangedItem {
  name: string;
  /** Compact descriptions, e.g. `schedule: "0 0 * * * *" → "0 30 * * * *"`; at most {@link MAX_CHANGES_LISTED} + a summary line. */
  changes: string[];
}

export interface TableDiff {
  added: string[];
  changed: ChangedItem[];
  removed: string[];
}

/**
 * What `push` would change in the tables `connections`, `mappings`, `jobs` and `pairs`; `pairs`
 * only when either side has a pair (a configuration without pairs diffs as it always did).
 */
export type ConfigDiff = Record<Exclude<ConfigKind, 'pairs'>, TableDiff> & { pairs?: TableDiff };

/** A stored item: its row key and its decoded definition. */
export interface StoredItem {
  name: string;
  definition: unknown;
}

export const MAX_CHANGES_LISTED = 5;
const MAX_VALUE_CHARS = 40;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON form of a value, as it is stored: drops `undefined` properties. */
function asStored(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value) ?? 'null') as unknown;
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}

function collect(before: unknown, after: unknown, at: PathSegment[], out: string[]): void {
  const where = at.length === 0 ? '(whole item)' : formatPath(at);
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) {
      if (!(key in after)) out.push(`${formatPath([...at, key])}: removed`);
      else if (!(key in before)) out.push(`${formatPath([...at, key])}: added ${show(after[key])}`);
      else collect(before[key], after[key], [...at, key], out);
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const common = Math.min(before.length, after.length);
    for (let i = 0; i < common; i++) collect(before[i], after[i], [...at, i], out);
    for (let i = common; i < after.length; i++) out.push(`${formatPath([...at, i])}: added ${show(after[i])}`);
    for (let i = common; i < before.length; i++) out.push(`${formatPath([...at, i])}: removed`);
    return;
  }
  if (JSON.stringify(before) !== JSON.stringify(after)) out.push(`${where}: ${show(before)} → ${show(after)}`);
}

/** Property-level differences between two JSON values (object key order does not matter). */
export function describeChanges(before: unknown, after: unknown): string[] {
  const all: string[] = [];
  collect(asStored(before), asStored(after), [], all);
  if (all.length <= MAX_CHANGES_LISTED) return all;
  return [...all.slice(0, MAX_CHANGES_LISTED), `… and ${all.length - MAX_CHANGES_LISTED} more`];
}

/** Compares stored items with desired ones by name. Names are listed in ascending order. */
export function diffItems(stored: readonly StoredItem[], desired: ReadonlyArray<{ name: string }>): TableDiff {
  const before = new Map(stored.map((item) => [item.name, item.definition]));
  const after = new Map(desired.map((item) => [item.name, item as unknown]));
  const diff: TableDiff = { added: [], changed: [], removed: [] };
  for (const name of [...after.keys()].sort()) {
    if (!before.has(name)) {
      diff.added.push(name);
      continue;
    }
    const changes = describeChanges(before.get(name), after.get(name));
    if (changes.length > 0) diff.changed.push({ name, changes });
  }
  diff.removed = [...before.keys()].filter((name) => !after.has(name)).sort();
  return diff;
}

/**
 * The diff per table between what is stored and `desired`. The jobs and mappings of pairs are
 * not compared: the tables hold the pair, never its expansion.
 */
export function diffConfig(stored: Record<ConfigKind, readonly StoredItem[]>, desired: HighwaterConfig): ConfigDiff {
  const own = withoutExpansion(desired);
  const diff: ConfigDiff = {
    connections: diffItems(stored.connections, own.connections),
    mappings: diffItems(stored.mappings, own.mappings),
    jobs: diffItems(stored.jobs, own.jobs),
  };
  if (stored.pairs.length + own.pairs.length > 0) diff.pairs = diffItems(stored.pairs, own.pairs);
  return diff;
}

const NO_CHANGES: TableDiff = { added: [], changed: [], removed: [] };

export function isEmptyDiff(diff: ConfigDiff): boolean {
  return CONFIG_KINDS.every((kind) => {
    const table = diff[kind] ?? NO_CHANGES;
    return table.added.length + table.changed.length + table.removed.length === 0;
  });
}

/** Human-readable lines: per table its added (+), changed (~, with details) and removed (-) items. */
export function formatDiff(diff: ConfigDiff): string[] {
  if (isEmptyDiff(diff)) return ['no changes'];
  const lines: string[] = [];
  for (const kind of CONFIG_KINDS) {
    const { added, changed, removed } = diff[kind] ?? NO_CHANGES;
    if (added.length + changed.length + removed.length === 0) continue;
    lines.push(`${kind}: ${added.length} added, ${changed.length} changed, ${removed.length} removed`);
    for (const name of added) lines.push(`  + ${name}`);
    for (const item of changed) {
      lines.push(`  ~ ${item.name}`);
      for (const change of item.changes) lines.push(`      ${change}`);
    }
    for (const name of removed) lines.push(`  - ${name}`);
  }
  return lines;
}
