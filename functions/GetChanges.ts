import { app, type InvocationContext, type Timer } from '@azure/functions';
import { totalSent } from '../src/detect/job-run';
import { readTimeBudgetMs } from '../src/detect/run-settings';
import { getRuntime } from './runtime-instance';

/**
 * App setting holding the timer's 6-field NCRONTAB schedule, e.g. `0 * * * * *` (every minute):
 * the timer only looks for due jobs; each job's own schedule decides whether it runs.
 */
export const GET_CHANGES_SCHEDULE = '%GetChangesSchedule%';

/**
 * Timer: runs every due job in order (docs/architecture.md, Detection). A failing job does not stop the others
 * and does not fail the invocation (its run log and metrics say why); only a failure to start
 * (runtime, configuration) fails it, so the host logs it and the next tick tries again.
 *
 * Time budget: the invocation stops starting jobs, and a running job stops between pages (flushed,
 * its resume cursor saved), once `HIGHWATER_RUN_BUDGET_SECONDS` have passed — by default two
 * thirds of `functionTimeout` — so the host never kills a run; the next tick resumes it.
 * Backpressure: a run that has sent `HIGHWATER_QUEUE_DEPTH_LIMIT` messages, or whose queue holds
 * that many, stops the same way, and the invocation resumes it once the queue has room
 * (src/detect/queue-room.ts), other due jobs running in between.
 */
export async function getChanges(timer: Timer, context: InvocationContext): Promise<void> {
  if (timer.isPastDue) context.warn('GetChanges is running late (the previous run overran or the app was down)');
  const startedAt = Date.now();
  const runtime = await getRuntime();
  const budgetMs = readTimeBudgetMs();
  const runs = await runtime.detection.execute(budgetMs === undefined ? {} : { deadline: new Date(startedAt + budgetMs) });
  for (const run of runs) {
    const stopped = run.stoppedEarly === 'timeBudget' ? ' (time budget reached: resumes on the next tick)'
      : run.stoppedEarly === 'backpressure' ? ' (backpressure: its turn is over or its queue full; resumes once the queue has room)' : '';
    const line = `job ${run.jobName}: ${run.outcome}${stopped}, ${run.detected} detected, ${totalSent(run)} sent, watermark ${run.watermarkBefore ?? '-'} → ${run.watermarkAfter ?? '-'}`;
    if (run.outcome === 'Failed') context.error(`${line}: ${run.error ?? ''}`);
    else context.log(line);
  }
  // Every 10 s by default: below host.json's Information level, so not stored in Azure.
  if (runs.length === 0) context.debug('no job due');
}

app.timer('GetChanges', { schedule: GET_CHANGES_SCHEDULE, runOnStartup: false, useMonitor: true, handler: getChanges });
