import type { Job } from '../model/job';
import { parseWatermarkType } from '../model/watermark-value';
import type { CrossReferenceIssue, KindEntries } from './cross-references';

/**
 * What a job reading an outbox cannot have (its source connection has `settings.outbox`): the
 * outbox id is the change tracker, so the watermark type is `number`; the application decides
 * what it writes, so there is no filter; a delete is a row of its own, so no soft delete. The
 * outbox source refuses the same at run time, with the same words.
 */
export function outboxJobIssues(connections: KindEntries<unknown>, jobs: KindEntries<Job>): CrossReferenceIssue[] {
  const outboxes = new Set<string>();
  for (const { value } of connections.parsed) {
    const connection = value as { name?: unknown; settings?: { outbox?: unknown } };
    if (typeof connection.name === 'string' && connection.settings?.outbox !== undefined) outboxes.add(connection.name);
  }
  const issues: CrossReferenceIssue[] = [];
  for (const { index, value: job } of jobs.parsed) {
    if (!outboxes.has(job.source)) continue;
    const reading = `when reading the outbox of connection "${job.source}"`;
    const at = `jobs[${index}]`;
    if (parseWatermarkType(job.watermark.type) !== 'number') {
      issues.push({ kind: 'jobs', path: `${at}.watermark.type`, message: `must be number ${reading} (the outbox id is the change tracker), got ${JSON.stringify(job.watermark.type)}` });
    }
    if (job.filter.length > 0) issues.push({ kind: 'jobs', path: `${at}.filter`, message: `is not supported ${reading} (the application decides what it writes to the outbox)` });
    if (job.softDelete) issues.push({ kind: 'jobs', path: `${at}.softDelete`, message: `is not supported ${reading} (the application writes a delete row instead)` });
  }
  return issues;
}
