import type { ConfigIssue } from '../platform/config-issue';
import { nextOccurrence } from '../platform/schedule';

/**
 * Schedules that run more often than the look for due jobs (`GetChangesSchedule`). The local host
 * wakes at each occurrence of a job's own schedule, but the Functions app looks for due jobs only
 * when its GetChanges timer fires: there such a job runs at most once per look. Valid all the
 * same (a local setup may want it), so `config validate` warns instead of refusing.
 */

/** Occurrences sampled for a schedule's shortest gap: a day of hourly schedules, minutes of finer ones. */
const SAMPLES = 48;
/** A fixed Monday at midnight: the result depends on the schedules only, not on when validate runs. */
const FROM = new Date('2026-01-05T00:00:00Z');

/** A scheduled item as written in its file. */
export interface ScheduledEntry {
  /** The file's basename (`jobs.yaml`). */
  file: string;
  /** Property path of the schedule, e.g. `jobs[2].schedule`. */
  path: string;
  /** The entry's name. */
  name: string;
  schedule: string;
}

/** The shortest time in ms between two consecutive occurrences of a valid 6-field schedule, over {@link SAMPLES} occurrences from {@link FROM} (UTC). */
export function shortestGapMs(expr: string): number {
  let shortest = Number.POSITIVE_INFINITY;
  let previous = nextOccurrence(expr, FROM);
  for (let i = 1; i < SAMPLES; i++) {
    const next = nextOccurrence(expr, previous);
    shortest = Math.min(shortest, next.getTime() - previous.getTime());
    previous = next;
  }
  return shortest;
}

/** A warning for each entry whose schedule is due more often than `getChangesSchedule` fires. */
export function finerThanLookWarnings(entries: readonly ScheduledEntry[], getChangesSchedule: string): ConfigIssue[] {
  const look = shortestGapMs(getChangesSchedule);
  const warnings: ConfigIssue[] = [];
  for (const entry of entries) {
    const gap = shortestGapMs(entry.schedule);
    if (gap >= look) continue;
    warnings.push({
      file: entry.file,
      path: entry.path,
      entry: entry.name,
      message:
        `"${entry.schedule}" is due every ${seconds(gap)}, more often than GetChangesSchedule "${getChangesSchedule}" (every ${seconds(look)}): ` +
        'the Functions app looks for due jobs only on GetChangesSchedule, so in Azure it runs at most once per look; the local host runs it on its own schedule',
    });
  }
  return warnings;
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(3))} s`;
