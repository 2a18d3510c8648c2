import { JobActionType, type Job } from '../model/job';
import type { Mapping } from '../model/mapping';

/**
 * A job does one action, so the upserts and the deletes of one target record come from different
 * jobs. For the applied-version guard, an upsert job's related jobs are the delete jobs writing
 * the same target entity of the same connection with the same watermark type (and the other way
 * round): a delete applied after an upsert makes that upsert stale, an upsert applied after a
 * delete makes the delete stale. Two upsert jobs are never related: they may write different
 * columns of one record.
 * @returns the related job names of a job name (none for an unknown job or an InvokeAction job).
 */
export function relatedJobsOf(jobs: readonly Job[], mappingOf: (name: string) => Mapping | undefined): (jobName: string) => readonly string[] {
  const byName = new Map(jobs.map((job) => [job.name, job]));
  const memo = new Map<string, readonly string[]>();
  const identity = (job: Job) => {
    const entity = mappingOf(job.mapping)?.target.entity;
    return entity === undefined ? undefined : JSON.stringify([job.target, entity, job.watermark.type]);
  };
  return (jobName) => {
    const known = memo.get(jobName);
    if (known) return known;
    const job = byName.get(jobName);
    const other = job?.action === JobActionType.NewUpdate ? JobActionType.Delete : job?.action === JobActionType.Delete ? JobActionType.NewUpdate : undefined;
    const own = job && identity(job);
    const related = other && own ? jobs.filter((j) => j.action === other && identity(j) === own).map((j) => j.name) : [];
    memo.set(jobName, related);
    return related;
  };
}

/**
 * {@link relatedJobsOf} over a configuration that may be reloaded: recomputed when the list of
 * jobs is another object than the last time.
 */
export function liveRelatedJobs(jobs: () => readonly Job[], mappingOf: (name: string) => Mapping | undefined): (jobName: string) => readonly string[] {
  let seen: readonly Job[] | undefined;
  let lookup: (jobName: string) => readonly string[] = () => [];
  return (jobName) => {
    const current = jobs();
    if (current !== seen) {
      seen = current;
      lookup = relatedJobsOf(current, mappingOf);
    }
    return lookup(jobName);
  };
}
