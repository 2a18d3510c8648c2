import type { JobRunResult } from '../../detect/job-run';
import type { HostStats } from '../../host/host-stats';

/** What the live view needs of the detection service (`ProcessJobsForRetrievalInOrderService`). */
export interface RunProgressSource {
  onRunProgress(listener: (run: Readonly<JobRunResult>) => void): () => void;
}

/**
 * The host's stats with the runs still going counted in: `recentRuns` holds finished runs only,
 * so the progress line said `detected 0, sent 0` while a 2,000-row job was reading and jumped
 * when it ended. The view's `recentRuns` adds each run in progress (the detection service
 * reports it after every page) until that same run object is recorded as finished — counted
 * once, never twice, never dropped in between. Everything else is the stats' own.
 */
export function withLiveRuns(stats: HostStats, detection: RunProgressSource): { view: HostStats; stop(): void } {
  const going = new Set<Readonly<JobRunResult>>();
  const stop = detection.onRunProgress((run) => going.add(run));
  // The prototype is the stats object: its fields and methods (processed, processedCount, …) stay live.
  const view = Object.create(stats, {
    recentRuns: {
      get(): readonly JobRunResult[] {
        const finished = new Set<Readonly<JobRunResult>>(stats.recentRuns);
        for (const run of going) if (finished.has(run)) going.delete(run);
        return going.size === 0 ? stats.recentRuns : [...stats.recentRuns, ...(going as Set<JobRunResult>)];
      },
    },
  }) as HostStats;
  return { view, stop };
}
