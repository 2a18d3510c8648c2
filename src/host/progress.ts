import type { MessageBus, QueueCounts } from '../bus/message-bus';
import type { JobRunResult } from '../detect/job-run';
import { totalSent } from '../detect/job-run';
import type { Clock } from '../platform/clock';
import type { HostStats } from './host-stats';
import type { ProcessOutcome } from '../telemetry/metrics';
import { type QueueNames, allQueueNames } from '../platform/queue-topology';

const OUTCOMES = ['Success', 'Superseded', 'Deferred', 'Ignored', 'Transitive', 'Failed'] as const;
/** How a message can end (a deferral always brings it back). */
const ENDED = OUTCOMES.filter((o) => o !== 'Deferred');

/** The progress line's words for the outcomes. */
const OUTCOME_WORDS: Record<(typeof OUTCOMES)[number], string> = {
  Success: 'applied',
  Superseded: 'superseded',
  Deferred: 'waiting for their target',
  Ignored: 'ignored',
  Transitive: 'waiting on a dependency',
  Failed: 'failed',
};

/** Depth of every queue (work and side queues) with its dead-letter count. */
export async function queueDepths(bus: MessageBus, queues: QueueNames): Promise<Array<{ queue: string } & QueueCounts>> {
  const names = allQueueNames(queues);
  return Promise.all(names.map(async (queue) => ({ queue, ...(await bus.counts(queue)) })));
}

/** One line of live progress: detection and processing since the host started. */
export function progressLine(stats: HostStats, now: Date): string {
  const detected = stats.recentRuns.reduce((n, r) => n + r.detected, 0);
  const sent = stats.recentRuns.reduce((n, r) => n + totalSent(r), 0);
  const queues = [...stats.processed.entries()]
    .map(([queue, byOutcome]) => `${queue} ${OUTCOMES.filter((o) => (byOutcome.get(o) ?? 0) > 0 || o === 'Success').map((o) => `${byOutcome.get(o) ?? 0} ${OUTCOME_WORDS[o]}`).join(', ')}`)
    .join(' · ');
  const failedRuns = stats.recentRuns.filter((r) => r.outcome === 'Failed').length;
  return `[${now.toISOString().slice(11, 19)}] detected ${detected}, sent ${sent}${failedRuns ? `, ${failedRuns} failed run(s)` : ''} | processed ${stats.processedCount()}${queues ? ` (${queues})` : ''}${attemptsNote(stats)}`;
}

/** `, 158 attempts` when messages took more attempts than there are messages (retries, deferrals); else nothing. */
function attemptsNote(stats: HostStats): string {
  const attempts = stats.attemptCount();
  return attempts === stats.processedCount() ? '' : `, ${attempts} attempts`;
}

/** The line printed once the work queues have drained after some processing. */
export function caughtUpLine(stats: HostStats, now: Date): string {
  return `[${now.toISOString().slice(11, 19)}] all caught up: ${stats.processedCount()} messages processed${attemptsNote(stats)}, the work queues are empty`;
}

/** The line printed on Ctrl-C: how long the host ran and what it did. */
export function stoppedLine(stats: HostStats, now: Date): string {
  const seconds = Math.round((now.getTime() - stats.startedAt.getTime()) / 1000);
  const ran = seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`;
  return `stopped after ${ran}: ${progressLine(stats, now).slice(11)}`;
}

export interface ProgressOptions {
  /** How often to look. Default 2,000 ms. */
  everyMs?: number;
  /**
   * Whether the work queues are empty and nothing is in flight. When given, "all caught up" is
   * printed once each time they drain after messages were processed. Default: never printed.
   */
  idle?: () => Promise<boolean>;
}

/** Prints {@link progressLine} every `everyMs` when something changed, and {@link caughtUpLine}. Returns a stop function. */
export function startProgress(stats: HostStats, clock: Clock, print: (line: string) => void, options: ProgressOptions = {}): () => void {
  let last = '';
  let reportedAt = -1;
  let checking = false;
  return clock.every(options.everyMs ?? 2_000, () => {
    const line = progressLine(stats, clock.now());
    const key = line.slice(11);
    if (key !== last) print(line);
    last = key;
    // Attempts, not messages: a retry is work too, and the queues are not idle while one waits.
    const processed = stats.attemptCount();
    if (!options.idle || checking || processed === 0 || processed === reportedAt) return;
    checking = true;
    void options
      .idle()
      .then((idle) => {
        // Nothing was processed while the queues were counted: not just a gap between two batches.
        if (idle && stats.attemptCount() === processed) {
          reportedAt = processed;
          print(caughtUpLine(stats, clock.now()));
        }
      })
      .catch(() => undefined)
      .finally(() => (checking = false));
  });
}

/** The `--once` summary: jobs, processing outcomes, where messages ended, queue depths. */
export function formatSummary(args: { runs: JobRunResult[]; stats: HostStats; depths: Array<{ queue: string } & QueueCounts>; queues: QueueNames; seconds: number }): string {
  const { runs, stats, depths, queues, seconds } = args;
  const lines: string[] = [`Highwater run summary (${seconds.toFixed(1)} s)`, '', 'Jobs'];
  const width = Math.max(10, ...runs.map((r) => r.jobName.length));
  for (const run of runs) {
    const sentTo = Object.entries(run.sentByQueue).map(([q, n]) => `${n} → ${q}`).join(', ') || '0';
    lines.push(`  ${run.jobName.padEnd(width)}  ${run.outcome.padEnd(9)}  detected ${String(run.detected).padStart(6)}  sent ${sentTo}${run.error ? `  error: ${run.error}` : ''}`);
  }
  lines.push('', 'Processed (messages by how they ended, each once; attempts count every try)');
  for (const queue of new Set([...stats.attempts.keys(), ...stats.processed.keys()])) {
    const byOutcome = stats.processed.get(queue) ?? new Map<ProcessOutcome, number>();
    lines.push(`  ${queue.padEnd(20)} ${ENDED.map((o) => `${o} ${byOutcome.get(o) ?? 0}`).join('  ')}  · attempts ${stats.attemptCount(queue)}`);
  }
  const d = (k: Parameters<HostStats['dispositions']['get']>[0]) => stats.dispositions.get(k) ?? 0;
  const rows = (list: Array<[string, number, string]>) => list.map(([label, n, where]) => `  ${label.padEnd(29)}${String(n).padStart(6)}${where ? `  → ${where}` : ''}`);
  lines.push(
    '',
    'Where messages ended',
    ...rows([
      ['applied to the target', d('completed'), ''],
      ['superseded (newer in batch)', d('superseded'), ''],
      ['ignored (outdated)', d('ignored'), queues.ignored],
      ['parked (dependency missing)', d('transitive'), Object.values(queues.transitive).join(' / ')],
      ['dead-lettered', d('deadLettered'), '<queue>/$deadletterqueue'],
    ]),
    '',
    'Attempts that brought a message back for another',
    ...rows([
      ['retried later', d('retried'), 'a scheduled copy in its queue'],
      ['waiting for their target', d('deferred'), 'a scheduled copy (target in outage)'],
      ['released for redelivery', d('abandoned'), 'redelivered'],
    ]),
    '',
    'Queues now (active / scheduled / dead-letter)',
  );
  for (const depth of depths) lines.push(`  ${depth.queue.padEnd(20)} ${depth.active} / ${depth.scheduled} / ${depth.deadLetter}`);
  return lines.join('\n');
}
