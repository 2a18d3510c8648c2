import type { Job } from '../model/job';
import type { Mapping } from '../model/mapping';
import type { Pair, PairSideName } from '../model/pair';
import type { ConfigIssue } from '../platform/config-issue';
import type { CrossReferenceIssue, KindEntries } from './cross-references';
import { expandPair, issueInPair } from './pair-expansion';
import { pairIssues } from './pair-rules';

/**
 * Pairs within a configuration's validation: their rules, then each valid pair's expansion
 * appended to the jobs and mappings, so that the generated items pass the same checks as
 * hand-written ones. An issue those checks find on a generated item is moved to its pair (a
 * `jobs[7]` that no file holds would send a reader looking in vain).
 */

interface Origin {
  pairIndex: number;
  pair: Pair;
  side: PairSideName;
  name: string;
}

export interface PairValidation {
  /** The pairs' own issues and their expansions' schema issues. */
  issues: CrossReferenceIssue[];
  /** Where an issue on a generated job or mapping belongs: its pair's path and message. */
  relocate(issue: ConfigIssue, files: { jobs: string; mappings: string; pairs: string }): ConfigIssue;
}

/**
 * Checks the pairs and appends the expansion of each valid one to `mappings` and `jobs` (after
 * every hand-written entry, with their names added).
 * @param rawCounts how many jobs and mappings were written by hand (parsed or not).
 */
export function addPairs(
  entries: {
    connections: KindEntries<unknown>;
    mappings: KindEntries<Mapping>;
    jobs: KindEntries<Job>;
    pairs: KindEntries<Pair>;
  },
  rawCounts: { jobs: number; mappings: number },
): PairValidation {
  const { mappings, jobs, pairs } = entries;
  const { issues, valid } = pairIssues(entries);
  const jobBase = rawCounts.jobs;
  const mappingBase = rawCounts.mappings;
  const generatedJobs: Origin[] = [];
  const generatedMappings: Origin[] = [];
  for (const { index, value: pair } of pairs.parsed) {
    // A duplicate name would expand into duplicate jobs: it is reported, its pair not expanded.
    if (!valid.has(index) || pairs.names.get(pair.name) !== index) continue;
    const expansion = expandPair(pair);
    if (expansion.issues.length > 0) {
      issues.push(...expansion.issues.map((issue) => ({ kind: 'pairs' as const, path: `pairs[${index}]`, message: issue.message })));
      continue;
    }
    for (const job of expansion.jobs) {
      const at = jobBase + generatedJobs.length;
      generatedJobs.push({ pairIndex: index, pair, side: job.pair!.side, name: job.name });
      jobs.parsed.push({ index: at, value: job });
      jobs.names.set(job.name, at);
    }
    expansion.mappings.forEach((mapping, i) => {
      const at = mappingBase + generatedMappings.length;
      generatedMappings.push({ pairIndex: index, pair, side: i === 0 ? 'a' : 'b', name: mapping.name });
      mappings.parsed.push({ index: at, value: mapping });
      mappings.names.set(mapping.name, at);
    });
  }
  const relocate: PairValidation['relocate'] = (issue, files) => {
    const match = /^(jobs|mappings)\[(\d+)\](.*)$/.exec(issue.path);
    if (!match || issue.file !== files[match[1] as 'jobs' | 'mappings']) return issue;
    const kind = match[1] as 'jobs' | 'mappings';
    const origin = kind === 'jobs' ? generatedJobs[Number(match[2]) - jobBase] : generatedMappings[Number(match[2]) - mappingBase];
    if (!origin) return issue;
    return issueInPair(issue, { kind, name: origin.name, pair: origin.pair, pairIndex: origin.pairIndex, from: origin.side, rest: match[3] }, files.pairs);
  };
  return { issues, relocate };
}
