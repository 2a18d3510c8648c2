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

/**
 * `config` as it is written by hand and stored: without the jobs its pairs expand into (those
 * with `pair` set, which the job schema does not accept from a file) and their mappings.
 */
export function withoutExpansion(config: HighwaterConfig): HighwaterConfig {
  const pairs = config.pairs ?? [];
  const generated = config.jobs.filter((job) => job.pair !== undefined);
  if (generated.length === 0) return { ...config, pairs };
  const mappings = new Set(generated.map((job) => job.mapping));
  return {
    ...config,
    mappings: config.mappings.filter((mapping) => !mappings.has(mapping.name)),
    jobs: config.jobs.filter((job) => job.pair === undefined),
    pairs,
  };
}

/** Indexes of the pair fields that flow out of `from`, in the order of the generated mapping's fields. */
function flowingFields(pair: Pair, from: PairSideName): number[] {
  return pair.fields.flatMap((field, j) => (operationsFrom(field, from).flows ? [j] : []));
}

/**
 * Where in its pair a property of a generated job or mapping comes from (`watermark.type` of the
 * a-to-b job → `a.watermark.type`; `fields[1].target` of its mapping → `fields[j].b`), or
 * undefined when it comes from no one property (it is the expansion's own).
 * @param rest the property path inside the generated item, e.g. `.watermark.type`.
 */
export function pairPathOf(kind: 'jobs' | 'mappings', pair: Pair, from: PairSideName, rest: string): string | undefined {
  const to = otherSide(from);
  if (kind === 'jobs') {
    if (rest === '.source') return `${from}.connection`;
    if (rest === '.target') return `${to}.connection`;
    return /^\.(watermark|filter|softDelete)\b/.test(rest) ? `${from}${rest}` : undefined;
  }
  const entity = /^\.(source|target)\.(entity|key)\b(.*)$/.exec(rest);
  if (entity) return `${entity[1] === 'source' ? from : to}.${entity[2]}${entity[3]}`;
  const field = /^\.fields\[(\d+)\]\.(source|target|operations)\b(.*)$/.exec(rest);
  const j = field ? flowingFields(pair, from)[Number(field[1])] : undefined;
  if (!field || j === undefined) return undefined;
  if (field[2] === 'operations') return `fields[${j}].${from === 'a' ? 'toB' : 'toA'}`;
  return `fields[${j}].${field[2] === 'source' ? from : to}`;
}

/**
 * An issue on a generated job or mapping (`jobs[7]`, an index no file holds) moved to its pair:
 * the pair's property it comes from, else `pairs[i]` with the generated item named in the message.
 */
export function issueInPair(
  issue: ConfigIssue,
  generated: { kind: 'jobs' | 'mappings'; name: string; pair: Pair; pairIndex: number; from: PairSideName; rest: string },
  pairsFile: string,
): ConfigIssue {
  const at = `pairs[${generated.pairIndex}]`;
  const entry = generated.pair.name;
  const mapped = pairPathOf(generated.kind, generated.pair, generated.from, generated.rest);
  if (mapped !== undefined) return { file: pairsFile, path: `${at}.${mapped}`, message: issue.message, entry };
  const where = generated.rest === '' ? '' : `${generated.rest.replace(/^\./, '')}: `;
  const what = generated.kind === 'jobs' ? 'job' : 'mapping';
  return { file: pairsFile, path: at, message: `generated ${what} ${JSON.stringify(generated.name)}: ${where}${issue.message}`, entry };
}

/**
 * An issue a check of the whole configuration (e.g. `highwater check`) found on a generated job
 * or mapping, moved to its pair ({@link issueInPair}). Other issues are returned as they are.
 */
export function moveToPair(issue: ConfigIssue, config: HighwaterConfig, files: { jobs: string; mappings: string; pairs: string }): ConfigIssue {
  const match = /^(jobs|mappings)\[(\d+)\](.*)$/.exec(issue.path);
  if (!match || issue.file !== files[match[1] as 'jobs' | 'mappings']) return issue;
  const kind = match[1] as 'jobs' | 'mappings';
  const item = kind === 'jobs' ? config.jobs[Number(match[2])] : config.mappings[Number(match[2])];
  if (item === undefined) return issue;
  for (const [pairIndex, pair] of config.pairs.entries()) {
    const from = (['a', 'b'] as const).find((side) => pairJobName(pair.name, side) === item.name);
    if (from) return issueInPair(issue, { kind, name: item.name, pair, pairIndex, from, rest: match[3] }, files.pairs);
  }
  return issue;
}
