import type { JobRunResult } from '../detect/job-run';
import type { ProcessResult } from '../process/process-queue-message-service';
import type { ProcessOutcome } from '../telemetry/metrics';

/** One processed message, as kept for the live view. */
export interface ProcessedEntry {
  at: Date;
  queue: string;
  jobName: string;
  outcome: ProcessOutcome;
  disposition: ProcessResult['disposition'];
  error?: string;
  messageId: string;
}

/** The entry of one processed message, `at` as the recorder keeps time (a Date here, epoch ms from the worker). */
export function processedEntryOf<At extends Date | number>(
  at: At,
  queue: string,
  result: Pick<ProcessResult, 'jobName' | 'outcome' | 'disposition' | 'error'>,
  message: { messageId: string },
): Omit<ProcessedEntry, 'at'> & { at: At } {
  return { at, queue, jobName: result.jobName ?? 'unknown', outcome: result.outcome, disposition: result.disposition, error: result.error, messageId: message.messageId };
}

/**
 * Dispositions that are a message's last word in its work queue. The others (retried, deferred,
 * abandoned) bring the same message back for another attempt.
 */
export const FINAL_DISPOSITIONS: ReadonlySet<ProcessResult['disposition']> = new Set(['completed', 'superseded', 'ignored', 'transitive', 'deadLettered']);

/**
 * What the local host has done since it started, in memory: processed messages per queue and
 * outcome, recent runs and recent failures (bounded). Feeds the terminal progress, the `--once`
 * summary and the status page.
 */
export class HostStats {
  readonly startedAt: Date;
  /**
   * queue → outcome → messages that ended (a final disposition): each message once, by how it
   * ended. A message retried 4 times before it was dead-lettered is 1 `Failed` here.
   */
  readonly processed = new Map<string, Map<ProcessOutcome, number>>();
  /** queue → outcome → attempts: every processing of a message, a retry and a deferral included. */
  readonly attempts = new Map<string, Map<ProcessOutcome, number>>();
  /** disposition → attempts (completed, ignored, transitive, retried, abandoned, deadLettered, …). */
  readonly dispositions = new Map<ProcessResult['disposition'], number>();
  readonly recentRuns: JobRunResult[] = [];
  readonly recentProcessed: ProcessedEntry[] = [];

  constructor(
    now: Date,
    /** Entries kept in each recent list. Default 500. */
    private readonly keep = 500,
  ) {
    this.startedAt = now;
  }

  recordRun(run: JobRunResult): void {
    this.recentRuns.push(run);
    if (this.recentRuns.length > this.keep) this.recentRuns.shift();
  }

  recordProcessed(entry: ProcessedEntry): void {
    count(this.attempts, entry);
    if (FINAL_DISPOSITIONS.has(entry.disposition)) count(this.processed, entry);
    this.dispositions.set(entry.disposition, (this.dispositions.get(entry.disposition) ?? 0) + 1);
    this.recentProcessed.push(entry);
    if (this.recentProcessed.length > this.keep) this.recentProcessed.shift();
  }

  /** Messages that ended, of one queue (all outcomes) or of all queues. */
  processedCount(queue?: string): number {
    return total(this.processed, queue);
  }

  /** Attempts (every processing, retries included), of one queue or of all queues. */
  attemptCount(queue?: string): number {
    return total(this.attempts, queue);
  }

  /**
   * Recent failures (not Success) grouped by error message, most frequent first: `count` failed
   * attempts of `messages` distinct messages.
   */
  failuresByMessage(): Array<{ error: string; count: number; messages: number; lastAt: Date; jobs: string[] }> {
    const groups = new Map<string, { error: string; count: number; ids: Set<string>; lastAt: Date; jobs: Set<string> }>();
    for (const e of this.recentProcessed) {
      if (e.outcome === 'Success' || !e.error) continue;
      const g = groups.get(e.error) ?? { error: e.error, count: 0, ids: new Set<string>(), lastAt: e.at, jobs: new Set<string>() };
      g.count++;
      g.ids.add(e.messageId);
      if (e.at > g.lastAt) g.lastAt = e.at;
      g.jobs.add(e.jobName);
      groups.set(e.error, g);
    }
    return [...groups.values()]
      .sort((a, b) => b.count - a.count)
      .map(({ ids, jobs, ...g }) => ({ ...g, messages: ids.size, jobs: [...jobs] }));
  }
}

function count(counts: Map<string, Map<ProcessOutcome, number>>, entry: ProcessedEntry): void {
  const byOutcome = counts.get(entry.queue) ?? new Map<ProcessOutcome, number>();
  byOutcome.set(entry.outcome, (byOutcome.get(entry.outcome) ?? 0) + 1);
  counts.set(entry.queue, byOutcome);
}

function total(counts: Map<string, Map<ProcessOutcome, number>>, queue?: string): number {
  const maps = queue ? [counts.get(queue)] : [...counts.values()];
  return maps.reduce((sum, m) => sum + [...(m?.values() ?? [])].reduce((a, b) => a + b, 0), 0);
}
