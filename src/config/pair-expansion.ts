import type { HighwaterConfig } from '../model/config';
import type { Job } from '../model/job';
import type { FieldMapping, Mapping } from '../model/mapping';
import { otherSide, pairJobName, type Pair, type PairField, type PairSideName } from '../model/pair';
import { formatPath, type ConfigIssue } from '../platform/config-issue';
import { jobSchema } from './job-schema';
import { mappingSchema } from './mapping-schema';
import { inverseOf } from './pair-inverse';
import { configErrorMessage } from './zod-issues';

/**
 * A pair becomes two ordinary jobs and mappings, `<pair>.a-to-b` and `<pair>.b-to-a`: each reads
 * its side past its own watermark and writes the other, so that running, detecting and
 * processing find them as any job. They exist only in the validated configuration: the tables
 * and the config folder hold the pair (see {@link withoutExpansion}).
 */

export interface PairExpansion {
  /** The a-to-b job and the b-to-a job. */
  jobs: Job[];
  /** Same names and order as `jobs`. */
  mappings: Mapping[];
  /** What the job or mapping schema found wrong with a generated item (path relative to the pair). */
  issues: Array<{ path: string; message: string }>;
}

/** The operations of `field` on its way out of `from`; undefined when it does not flow that way. */
function operationsFrom(field: PairField, from: PairSideName): { flows: boolean; operations?: PairField['toB'] } {
  const way = from === 'a' ? 'toB' : 'toA';
  if (field.direction !== 'both' && field.direction !== way) return { flows: false };
  const own = field[way];
  if (own !== undefined && own.length > 0) return { flows: true, operations: own };
  // A field flowing both ways with operations one way only: the other way is their inverse.
  return { flows: true, operations: field.direction === 'both' ? inverseOf(field[from === 'a' ? 'toA' : 'toB']) : undefined };
}

function mappingFrom(pair: Pair, from: PairSideName): unknown {
  const to = otherSide(from);
  const fields: FieldMapping[] = [];
  for (const field of pair.fields) {
    const { flows, operations } = operationsFrom(field, from);
    if (!flows) continue;
    fields.push({ target: field[to], source: field[from], ...(operations ? { operations } : {}) });
  }
  return {
    name: pairJobName(pair.name, from),
    source: { entity: pair[from].entity, key: pair[from].key },
    target: { entity: pair[to].entity, key: pair[to].key },
    fields,
  };
}

function jobFrom(pair: Pair, from: PairSideName): unknown {
  const side = pair[from];
  return {
    name: pairJobName(pair.name, from),
    schedule: pair.schedule,
    enabled: pair.enabled,
    priority: pair.priority,
    source: side.connection,
    target: pair[otherSide(from)].connection,
    mapping: pairJobName(pair.name, from),
    watermark: side.watermark,
    filter: side.filter ?? [],
    ...(side.softDelete ? { softDelete: side.softDelete } : {}),
    // Two-way echo suppression plugs in where unchanged records are skipped.
    skipUnchanged: true,
  };
}

/** The jobs and mappings of one (valid) pair, defaults filled by the job and mapping schemas. */
export function expandPair(pair: Pair): PairExpansion {
  const expansion: PairExpansion = { jobs: [], mappings: [], issues: [] };
  for (const from of ['a', 'b'] as const) {
    const name = pairJobName(pair.name, from);
    const mapping = mappingSchema.safeParse(mappingFrom(pair, from), { error: configErrorMessage });
    const job = jobSchema.safeParse(jobFrom(pair, from), { error: configErrorMessage });
    for (const [what, result] of [['mapping', mapping], ['job', job]] as const) {
      for (const issue of result.error?.issues ?? []) {
        expansion.issues.push({ path: '', message: `generated ${what} "${name}": ${formatPath(issue.path) || '(whole item)'}: ${issue.message}` });
      }
    }
    if (!mapping.success || !job.success) continue;
    expansion.mappings.push(mapping.data);
    expansion.jobs.push({ ...job.data, pair: { name: pair.name, side: from, partner: pairJobName(pair.name, otherSide(from)) } });
  }
  return expansion;
}

/** The names of every job and mapping the pairs expand into. */
export function expansionNames(pairs: readonly Pick<Pair, 'name'>[]): Set<string> {
  return new Set(pairs.flatMap((pair) => [pairJobName(pair.name, 'a'), pairJobName(pair.name, 'b')]));
}

/**
 * `config` as it is written by hand and stored: without the jobs and mappings its pairs expand
 * into (validation forbids hand-written items of those names, so the names tell them apart).
 */
export function withoutExpansion(config: HighwaterConfig): HighwaterConfig {
  const pairs = config.pairs ?? [];
  if (pairs.length === 0 && !config.jobs.some((job) => job.pair)) return { ...config, pairs };
  const generated = expansionNames(pairs);
  return {
    ...config,
    mappings: config.mappings.filter((mapping) => !generated.has(mapping.name)),
    jobs: config.jobs.filter((job) => job.pair === undefined && !generated.has(job.name)),
    pairs,
  };
}

/**
 * An issue a check of the whole configuration (e.g. `highwater check`) found on a generated job
 * or mapping (`jobs[7]`, an index no file holds), moved to its pair: path `pairs[i]`, the
 * generated item named in the message. Other issues are returned as they are.
 */
export function moveToPair(issue: ConfigIssue, config: HighwaterConfig, files: { jobs: string; mappings: string; pairs: string }): ConfigIssue {
  const match = /^(jobs|mappings)\[(\d+)\](.*)$/.exec(issue.path);
  if (!match || issue.file !== files[match[1] as 'jobs' | 'mappings']) return issue;
  const isJob = match[1] === 'jobs';
  const item = isJob ? config.jobs[Number(match[2])] : config.mappings[Number(match[2])];
  if (item === undefined) return issue;
  const pairIndex = config.pairs.findIndex((pair) => pairJobName(pair.name, 'a') === item.name || pairJobName(pair.name, 'b') === item.name);
  if (pairIndex < 0) return issue;
  const where = match[3] === '' ? '' : `${match[3].replace(/^\./, '')}: `;
  const message = `generated ${isJob ? 'job' : 'mapping'} ${JSON.stringify(item.name)}: ${where}${issue.message}`;
  return { file: files.pairs, path: `pairs[${pairIndex}]`, message, entry: config.pairs[pairIndex].name };
}
