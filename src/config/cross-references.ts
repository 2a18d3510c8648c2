import type { Job } from '../model/job';
import type { Mapping } from '../model/mapping';
import { pushReferenceProblems } from './push-references';
import type { ConfigKind } from './schema';

/**
 * Checks that span entries: unique names, references between jobs, mappings and connections,
 * and response-job cycles. Works on whatever parsed, so that one broken entry does not hide the
 * problems of the others; names are taken from the raw entries, so that a reference to an entry
 * with its own errors is not reported a second time as unknown.
 */

interface Indexed<T> {
  index: number;
  value: T;
}

export interface KindEntries<T> {
  /** False when the kind could not be read at all (missing file, syntax error, not a list). */
  available: boolean;
  /** Name → index of its first entry, from the raw input. */
  names: Map<string, number>;
  parsed: Array<Indexed<T>>;
}

export interface CrossReferenceIssue {
  kind: ConfigKind;
  path: string;
  message: string;
}

const SINGULAR: Record<ConfigKind, string> = { connections: 'connection', mappings: 'mapping', jobs: 'job', pairs: 'pair' };
const MAX_LISTED = 10;

/** Name → first index, plus one issue per later duplicate. */
export function collectNames(kind: ConfigKind, raw: readonly unknown[], issues: CrossReferenceIssue[]): Map<string, number> {
  const names = new Map<string, number>();
  raw.forEach((item, index) => {
    const name = item !== null && typeof item === 'object' ? (item as { name?: unknown }).name : undefined;
    if (typeof name !== 'string' || name === '') return;
    const first = names.get(name);
    if (first === undefined) names.set(name, index);
    else issues.push({ kind, path: `${kind}[${index}].name`, message: `duplicate ${SINGULAR[kind]} name "${name}" (also ${kind}[${first}])` });
  });
  return names;
}

/** `unknown connection "x" (known: a, b)`. */
export function unknownName(kind: ConfigKind, name: string, known: Map<string, number>): string {
  const names = [...known.keys()].sort();
  const listed = names.length > MAX_LISTED ? `${names.slice(0, MAX_LISTED).join(', ')}, …` : names.join(', ');
  return `unknown ${SINGULAR[kind]} "${name}"${names.length > 0 ? ` (known: ${listed})` : ''}`;
}

function checkReference(
  kind: ConfigKind,
  target: KindEntries<unknown>,
  name: string | undefined,
  path: string,
  issues: CrossReferenceIssue[],
): void {
  if (name === undefined || !target.available || target.names.has(name)) return;
  issues.push({ kind: 'jobs', path, message: unknownName(kind, name, target.names) });
}

/** Response-job chains that come back to where they started, each reported once. */
function checkResponseCycles(jobs: KindEntries<Job>, issues: CrossReferenceIssue[]): void {
  const byName = new Map<string, Indexed<Job>>();
  for (const entry of jobs.parsed) if (!byName.has(entry.value.name)) byName.set(entry.value.name, entry);
  const inReportedCycle = new Set<string>();
  for (const start of [...jobs.parsed].sort((a, b) => a.index - b.index)) {
    const chain: string[] = [];
    let current: Indexed<Job> | undefined = start;
    while (current && !chain.includes(current.value.name)) {
      chain.push(current.value.name);
      const next: string | undefined = current.value.responseJob;
      current = next === undefined ? undefined : byName.get(next);
    }
    if (!current || current.value.name !== start.value.name || inReportedCycle.has(start.value.name)) continue;
    chain.forEach((name) => inReportedCycle.add(name));
    issues.push({ kind: 'jobs', path: `jobs[${start.index}].responseJob`, message: `cycle ${[...chain, start.value.name].join(' → ')}` });
  }
}

/** Every cross-entry problem of a configuration. */
export function checkCrossReferences(entries: {
  connections: KindEntries<unknown>;
  mappings: KindEntries<Mapping>;
  jobs: KindEntries<Job>;
}): CrossReferenceIssue[] {
  const issues: CrossReferenceIssue[] = [];
  const { connections, mappings, jobs } = entries;
  const mappingByName = new Map<string, Mapping>();
  for (const { value } of mappings.parsed) if (!mappingByName.has(value.name)) mappingByName.set(value.name, value);
  for (const { index, value: job } of jobs.parsed) {
    const at = `jobs[${index}]`;
    checkReference('connections', connections, job.source, `${at}.source`, issues);
    checkReference('connections', connections, job.target, `${at}.target`, issues);
    checkReference('mappings', mappings, job.mapping, `${at}.mapping`, issues);
    checkReference('jobs', jobs, job.responseJob, `${at}.responseJob`, issues);
    const mapping = mappingByName.get(job.mapping);
    for (const problem of pushReferenceProblems(job, connectionType(connections, job.source), mapping)) issues.push({ kind: 'jobs', path: `${at}.${problem.path}`, message: problem.message });
    if (job.responseJob !== undefined && mapping && mapping.responseMapping === undefined) {
      issues.push({
        kind: 'jobs',
        path: `${at}.responseJob`,
        message: `mapping "${mapping.name}" has no responseMapping, so nothing would be sent to "${job.responseJob}"`,
      });
    }
  }
  checkResponseCycles(jobs, issues);
  return issues;
}

/** The `type` of the first parsed connection named `name`, when there is one. */
function connectionType(connections: KindEntries<unknown>, name: string): string | undefined {
  const found = connections.parsed.find((c) => (c.value as { name?: unknown }).name === name)?.value as { type?: unknown } | undefined;
  return typeof found?.type === 'string' ? found.type : undefined;
}
