import { ConfigError } from '../../src/platform/errors';
import type { Job } from '../../src/model/job';

/** The `job.watermark.field` that selects change tracking (delta links) instead of a watermark property. */
export const DELTA_LINK_FIELD = '@odata.deltaLink';

/**
 * A delta link stored as a `string` watermark. Watermarks only ever move forward (ordinally for
 * strings), but delta links are opaque and do not order; so the stored value is
 * `<stamp> <deltaLink>`, where the stamp is the run's start (ISO 8601 UTC, milliseconds, always
 * later than the previous stamp). Each change of a run carries the bare stamp as its change
 * tracker (which sorts before `<stamp> <link>`), and the run's last page adds a timestamp-only
 * change carrying `<stamp> <newLink>`: the watermark ends on the new link, replacing the old.
 */
export interface StoredDelta {
  stamp: string;
  link: string;
}

const STORED = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z) (\S+)$/;

export function isDeltaJob(job: Job): boolean {
  return job.watermark.field.trim() === DELTA_LINK_FIELD;
}

/** @throws ConfigError when a delta job's watermark type is not `string`. */
export function checkDeltaJob(job: Job): void {
  if (job.watermark.type.trim().toLowerCase() !== 'string') {
    throw new ConfigError(`job "${job.name}": watermark field ${DELTA_LINK_FIELD} (change tracking) needs watermark type string, got ${JSON.stringify(job.watermark.type)}`);
  }
}

/** The stored delta link; undefined when none is stored (first run, reset, or a value of another form). */
export function parseDeltaWatermark(value: string | null): StoredDelta | undefined {
  const match = value === null ? null : STORED.exec(value);
  return match ? { stamp: match[1], link: match[2] } : undefined;
}

export function formatDeltaWatermark(stamp: string, link: string): string {
  // A link never holds a raw space in practice; encoding one keeps the stored form parseable.
  return `${stamp} ${link.replace(/ /g, '%20')}`;
}

/** The stamp of a new run: now, or 1 ms after the previous stamp when the clock is behind it. */
export function nextStamp(now: Date, previous?: string): string {
  const after = previous === undefined ? Number.NEGATIVE_INFINITY : Date.parse(previous) + 1;
  return new Date(Math.max(now.getTime(), after)).toISOString();
}
