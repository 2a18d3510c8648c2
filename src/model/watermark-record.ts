/** Table and partition of the spec's watermarks (one row per job). */
export const WATERMARK_TABLE = 'watermark';
export const WATERMARK_PARTITION = 'watermark';

/** One row of the `watermark` table (partition `watermark`, row key = job name). */
export interface WatermarkRecord {
  jobName: string;
  /** Stored watermark (canonical string), null when never set or reset. */
  watermark: string | null;
  /** Last time the job's scheduled run completed; null means "due". */
  lastCronRun: Date | null;
  /** False for the unsaved entity returned when no row exists yet. */
  persisted: boolean;
  /**
   * Set by every reset (a new value each time): the job's messages carry it, and it is part of
   * their message ids, so that what a reset sends again is not dropped by the bus's duplicate
   * detection as a resend of what was sent before it. Null until the first reset.
   */
  resync: string | null;
}

/** A new resync token (see {@link WatermarkRecord.resync}): the time of the reset and 6 random hex digits. */
export function newResyncToken(now: Date = new Date()): string {
  return `${now.toISOString()}~${Math.floor(Math.random() * 0x1000000).toString(16).padStart(6, '0')}`;
}

/** Read and write access to watermarks (implemented on Table Storage by `WatermarkService`). */
export interface WatermarkStore {
  /** The job's record; an unsaved record (`persisted: false`, nulls) when there is none. */
  getWatermarkByJobName(jobName: string): Promise<WatermarkRecord>;
  /** All records, one bulk query on partition `watermark`. */
  getAllWatermarks(): Promise<Map<string, WatermarkRecord>>;
  /**
   * Unconditional write (no ETag: last writer wins). `resync` is written as given (a run passes
   * the token it read, so that it stays); omitted, none is stored.
   */
  updateWatermarkByJobName(jobName: string, watermark: string | null, lastCronRun: Date | null, resync?: string | null): Promise<void>;
  /** Clears `Watermark` (full rerun next time), or sets it to `to`; stores a new resync token. */
  resetWatermark(jobName: string, to?: string): Promise<void>;
}
