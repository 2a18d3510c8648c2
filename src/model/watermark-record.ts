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
}

/** Read and write access to watermarks (implemented on Table Storage by `WatermarkService`). */
export interface WatermarkStore {
  /** The job's record; an unsaved record (`persisted: false`, nulls) when there is none. */
  getWatermarkByJobName(jobName: string): Promise<WatermarkRecord>;
  /** All records, one bulk query on partition `watermark`. */
  getAllWatermarks(): Promise<Map<string, WatermarkRecord>>;
  /** Unconditional write (no ETag: last writer wins). */
  updateWatermarkByJobName(jobName: string, watermark: string | null, lastCronRun: Date | null): Promise<void>;
  /** Clears `Watermark` (full rerun next time), or sets it to `to`. */
  resetWatermark(jobName: string, to?: string): Promise<void>;
}
