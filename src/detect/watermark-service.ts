import { newResyncToken, WATERMARK_PARTITION, WATERMARK_TABLE, type WatermarkRecord, type WatermarkStore } from '../model/watermark-record';
import type { EntityProperties, TableRow, TableStorage, TableStore } from '../storage/table-store';
import { assertTableKey } from '../storage/table-key';

/** Columns of the spec. */
const WATERMARK_COLUMN = 'Watermark';
const LAST_CRON_RUN_COLUMN = 'LastCronRun';
/** Highwater's: the token of the last reset (see WatermarkRecord.resync). */
const RESYNC_COLUMN = 'Resync';

function unsaved(jobName: string): WatermarkRecord {
  return { jobName, watermark: null, lastCronRun: null, persisted: false, resync: null };
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
    resync: typeof row.properties[RESYNC_COLUMN] === 'string' && row.properties[RESYNC_COLUMN] !== '' ? String(row.properties[RESYNC_COLUMN]) : null,
  };
}

function toRow(jobName: string, watermark: string | null, lastCronRun: Date | null, resync: string | null): TableRow {
  const properties: EntityProperties = { [WATERMARK_COLUMN]: watermark, [LAST_CRON_RUN_COLUMN]: lastCronRun };
  if (resync !== null) properties[RESYNC_COLUMN] = resync;
  return { partitionKey: WATERMARK_PARTITION, rowKey: jobName, properties };
}

/**
 * Persists watermarks in table `watermark` (partition `watermark`, row key = job name, columns
 * `Watermark` string and `LastCronRun` DateTime). Only persists: the value logic is
 * `WatermarkValue`'s. The runs' state beside it in the same entity is `RunStateService`'s;
 * writing a watermark replaces the entity, which clears that state (a finished run's end).
 * Writes are unconditional (no ETag): last writer wins, and a stale writer only causes repeated
 * messages, never gaps.
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

  /** Replaces the entity: also clears the run state (see `RunStateService`). */
  async updateWatermarkByJobName(jobName: string, watermark: string | null, lastCronRun: Date | null, resync: string | null = null): Promise<void> {
    assertTableKey('job', jobName);
    await this.table.upsert(toRow(jobName, watermark, lastCronRun, resync));
  }

  /**
   * Makes the job due now: clears `LastCronRun` and keeps everything else (watermark, resync
   * token, run state), so the next detection tick runs it (a pushed "too many changes"). A run
   * finishing in between writes `LastCronRun` again (last writer wins); the job is then polled
   * at its next schedule occurrence instead.
   */
  async markDue(jobName: string): Promise<void> {
    assertTableKey('job', jobName);
    const row = await this.table.get(WATERMARK_PARTITION, jobName);
    const properties: EntityProperties = { ...(row?.properties ?? {}), [LAST_CRON_RUN_COLUMN]: null };
    await this.table.upsert({ partitionKey: WATERMARK_PARTITION, rowKey: jobName, properties });
  }

  /**
   * Clears `Watermark` (the next run reads everything) or sets it to `to`; keeps `LastCronRun`.
   * Also clears the run state (a resume cursor belongs to the old watermark; a reset starts over),
   * and stores a new resync token, so that what the next runs send again gets new message ids.
   * Read-then-replace: a run finishing in between may overwrite the reset (last writer wins).
   */
  async resetWatermark(jobName: string, to?: string): Promise<void> {
    const current = await this.getWatermarkByJobName(jobName);
    await this.table.upsert(toRow(jobName, to ?? null, current.lastCronRun, newResyncToken()));
  }
}
