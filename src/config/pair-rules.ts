import { parseWatermarkType } from '../model/watermark-value';
import { pairJobName, type Pair, type PairField, type PairSideName } from '../model/pair';
import { unknownName, type CrossReferenceIssue, type KindEntries } from './cross-references';
import { areInverses, inverseProblem } from './pair-inverse';

/**
 * What makes a pair unusable beyond its schema: the sides must exist, share a key, and map each
 * field once; a field that flows both ways must come back as it went (see pair-inverse.ts);
 * `newest` compares the sides' change trackers, so both must be date-times; match fields must be
 * pair fields; and the jobs and mappings a pair expands into must not take a hand-written name.
 * Only a pair without any of these problems is expanded.
 */

type Issue = Omit<CrossReferenceIssue, 'kind'>;

const SIDES: readonly PairSideName[] = ['a', 'b'];

function connectionIssues(pair: Pair, at: string, connections: KindEntries<unknown>): Issue[] {
  if (!connections.available) return [];
  return SIDES.filter((side) => !connections.names.has(pair[side].connection)).map((side) => ({
    path: `${at}.${side}.connection`,
    message: unknownName('connections', pair[side].connection, connections.names),
  }));
}

function mappedTwiceIssues(pair: Pair, at: string): Issue[] {
  const issues: Issue[] = [];
  for (const side of SIDES) {
    const first = new Map<string, number>();
    pair.fields.forEach((field, i) => {
      const earlier = first.get(field[side]);
      if (earlier === undefined) first.set(field[side], i);
      else issues.push({ path: `${at}.fields[${i}].${side}`, message: `field ${JSON.stringify(field[side])} of side ${side} is already mapped by fields[${earlier}]` });
    });
  }
  return issues;
}

/** Each side's key travels both ways, so that a record written to the other side can be found again. */
function sharedKeyIssues(pair: Pair, at: string): Issue[] {
  const issues: Issue[] = [];
  for (const side of SIDES) {
    pair[side].key.forEach((key, k) => {
      const index = pair.fields.findIndex((field) => field[side] === key);
      const path = `${at}.${side}.key[${k}]`;
      const name = JSON.stringify(key);
      if (index < 0) {
        issues.push({ path, message: `key field ${name} of side ${side} is not in fields: add it as the ${side} of a field with direction "both" (the sides must share a key)` });
      } else if (pair.fields[index].direction !== 'both') {
        issues.push({ path, message: `key field ${name} of side ${side} flows one way only (fields[${index}]): give that field direction "both" (the sides must share a key)` });
      }
    });
  }
  return issues;
}

function operationIssues(field: PairField, at: string): Issue[] {
  if (field.direction !== 'both') {
    // Operations for the way the field never flows would silently do nothing.
    const unused = field.direction === 'toB' ? 'toA' : 'toB';
    if (field[unused] === undefined) return [];
    return [{ path: `${at}.${unused}`, message: `the field flows ${field.direction} only, so ${unused} is never applied: remove ${unused} or give the field direction "both"` }];
  }
  const issues: Issue[] = [];
  for (const way of ['toB', 'toA'] as const) {
    const problem = inverseProblem(field[way]);
    if (problem) issues.push({ path: `${at}.${way}`, message: `${problem}: make the field one-way (direction ${JSON.stringify(way)}) or remove the operation` });
  }
  if (issues.length === 0 && field.toB !== undefined && field.toA !== undefined && !areInverses(field.toB, field.toA)) {
    issues.push({ path: `${at}.toA`, message: 'is not the inverse of toB: give toB alone (its inverse is derived) or make toA map each value back to where toB took it' });
  }
  return issues;
}

/** Why `newest` cannot decide between the sides, or undefined when both watermarks are date-times. */
function newestProblem(pair: Pair): string | undefined {
  const others = SIDES.filter((side) => parseWatermarkType(pair[side].watermark.type) !== 'datetime');
  if (others.length === 0) return undefined;
  const types = others.map((side) => `side ${side}'s is ${JSON.stringify(pair[side].watermark.type)}`).join(', ');
  return `"newest" needs both watermarks of type datetime (${types})`;
}

function conflictIssues(pair: Pair, at: string): Issue[] {
  const problem = newestProblem(pair);
  if (!problem) return [];
  const issues: Issue[] = [];
  if (pair.conflicts === 'newest') issues.push({ path: `${at}.conflicts`, message: `${problem}: set conflicts to a, b or manual` });
  pair.fields.forEach((field, i) => {
    if (field.conflict === 'newest') issues.push({ path: `${at}.fields[${i}].conflict`, message: `${problem}: set conflict to a, b or manual` });
  });
  return issues;
}

function matchIssues(pair: Pair, at: string): Issue[] {
  const issues: Issue[] = [];
  (pair.match ?? []).forEach((match, i) => {
    for (const side of SIDES) {
      if (pair.fields.some((field) => field[side] === match[side])) continue;
      issues.push({ path: `${at}.match[${i}].${side}`, message: `field ${JSON.stringify(match[side])} of side ${side} is not a pair field (fields[].${side}): add it to fields or match by another field` });
    }
  });
  return issues;
}

function collisionIssues(pair: Pair, at: string, mappings: KindEntries<unknown>, jobs: KindEntries<unknown>): Issue[] {
  const issues: Issue[] = [];
  for (const side of SIDES) {
    const name = pairJobName(pair.name, side);
    for (const [kind, entries] of [['jobs', jobs], ['mappings', mappings]] as const) {
      const index = entries.names.get(name);
      if (index === undefined) continue;
      const what = kind === 'jobs' ? 'job' : 'mapping';
      issues.push({ path: `${at}.name`, message: `the pair's ${what} ${JSON.stringify(name)} has the name of ${what} ${kind}[${index}]: rename the pair or the ${what}` });
    }
  }
  return issues;
}

/** Every problem of each parsed pair; `valid` holds the indexes of the pairs without any. */
export function pairIssues(entries: {
  connections: KindEntries<unknown>;
  mappings: KindEntries<unknown>;
  jobs: KindEntries<unknown>;
  pairs: KindEntries<Pair>;
}): { issues: CrossReferenceIssue[]; valid: Set<number> } {
  const issues: CrossReferenceIssue[] = [];
  const valid = new Set<number>();
  for (const { index, value: pair } of entries.pairs.parsed) {
    const at = `pairs[${index}]`;
    const found = [
      ...connectionIssues(pair, at, entries.connections),
      ...mappedTwiceIssues(pair, at),
      ...sharedKeyIssues(pair, at),
      ...pair.fields.flatMap((field, i) => operationIssues(field, `${at}.fields[${i}]`)),
      ...conflictIssues(pair, at),
      ...matchIssues(pair, at),
      ...collisionIssues(pair, at, entries.mappings, entries.jobs),
    ];
    if (found.length === 0) valid.add(index);
    issues.push(...found.map((issue) => ({ kind: 'pairs' as const, ...issue })));
  }
  return { issues, valid };
}
