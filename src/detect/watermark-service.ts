import type { WatermarkRecord, WatermarkStore } from '../model/watermark-record';
import type { EntityProperties, TableRow, TableStorage, TableStore } from '../storage/table-store';
import { assertTableKey } from '../storage/table-key';

/** Table, partition and columns of the spec. */
export const WATERMARK_TABLE = 'watermark';
export const WATERMARK_PARTITION = 'watermark';
const WATERMARK_COLUMN = 'Watermark';
const LAST_CRON_RUN_COLUMN = 'LastCronRun';

function unsaved(jobName: string): WatermarkRecord {
  return { jobName, watermark: null, lastCronRun: null, persisted: false };
}

function readDate(value: unknown): Date | null {
  if (value instanceof Date) return value;
  // A row edited by hand (e.g. in Storage Explorer) may hold the time as a plain string.
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = new Date(value);
    return Number.isNaN(parsed.getTime()) ? null : parsed;
  }
  return null;
}

function toRecord(row: TableRow): WatermarkRecord {
  const stored = row.properties[WATERMARK_COLUMN];
  return {
    jobName: row.rowKey,
    watermark: stored === undefined || stored === null ? null : stored instanceof Date ? stored.toISOString() : String(stored),
    lastCronRun: readDate(row.properties[LAST_CRON_RUN_COLUMN]),
    persisted: true,
  };
}

function toRow(jobName: string, watermark: string | null, lastCronRun: Date | null): TableRow {
  const properties: EntityProperties = { [WATERMARK_COLUMN]: watermark, [LAST_CRON_RUN_COLUMN]: lastCronRun };
  return { partitionKey: WATERMARK_PARTITION, rowKey: jobName, properties };
}

/**
 * Persists watermarks in table `watermark` (partition `watermark`, row key = job name, columns
 * `Watermark` string and `LastCronRun` DateTime). Only persists: the value logic is
 * `WatermarkValue`'s. Writes are unconditional (no ETag): last writer wins, and a stale writer
 * only causes repeated messages, never gaps.
 *
 * Job names that cannot be row keys (`/ \ # ?`, control characters, over 512 characters) are
 * rejected with a ConfigError naming the job; config validation already forbids them.
 */
export class WatermarkService implements WatermarkStore {
  constructor(private readonly table: TableStore) {}

  /** A service on `storage`'s `watermark` table, created if missing. */
  static async open(storage: TableStorage): Promise<WatermarkService> {
    return new WatermarkService(await storage.table(WATERMARK_TABLE));
  }

  async getWatermarkByJobName(jobName: string): Promise<WatermarkRecord> {
    assertTableKey('job', jobName);
    const row = await this.table.get(WATERMARK_PARTITION, jobName);
    return row ? toRecord(row) : unsaved(jobName);
  }

  async getAllWatermarks(): Promise<Map<string, WatermarkRecord>> {
    const rows = await this.table.queryPartition(WATERMARK_PARTITION);
    return new Map(rows.map((row) => [row.rowKey, toRecord(row)]));
  }

  async updateWatermarkByJobName(jobName: string, watermark: string | null, lastCronRun: Date | null): Promise<void> {
    assertTableKey('job', jobName);
    await this.table.upsert(toRow(jobName, watermark, lastCronRun));
  }

  /**
   * Clears `Watermark` (the next run reads everything) or sets it to `to`; keeps `LastCronRun`.
   * Read-then-replace: a run finishing in between may overwrite the reset (last writer wins).
   */
  async resetWatermark(jobName: string, to?: string): Promise<void> {
    const current = await this.getWatermarkByJobName(jobName);
    await this.table.upsert(toRow(jobName, to ?? null, current.lastCronRun));
  }
}
