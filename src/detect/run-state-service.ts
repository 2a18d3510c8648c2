import { WATERMARK_PARTITION, WATERMARK_TABLE } from '../model/watermark-record';
import { assertTableKey } from '../storage/table-key';
import type { TableStorage, TableStore } from '../storage/table-store';
import { readRunState, runStateColumns, type RunState, type RunStateStore } from './run-state';

/**
 * Keeps the runs' bookkeeping (resume cursor, running marker, failure backoff) in the run-state
 * columns of each job's watermark entity: one read gives the watermark and the state beside it.
 * The watermark columns are `WatermarkService`'s; this only ever writes them back as it read them.
 * A finished run's watermark write replaces the entity, and so clears the run state with it.
 */
export class RunStateService implements RunStateStore {
  constructor(private readonly table: TableStore) {}

  /** A service on `storage`'s `watermark` table, created if missing. */
  static async open(storage: TableStorage): Promise<RunStateService> {
    return new RunStateService(await storage.table(WATERMARK_TABLE));
  }

  async getRunState(jobName: string): Promise<RunState> {
    assertTableKey('job', jobName);
    const row = await this.table.get(WATERMARK_PARTITION, jobName);
    return readRunState(row?.properties ?? {});
  }

  async getAllRunStates(): Promise<Map<string, RunState>> {
    const rows = await this.table.queryPartition(WATERMARK_PARTITION);
    return new Map(rows.map((row) => [row.rowKey, readRunState(row.properties)]));
  }

  /**
   * Read-then-replace of the run-state columns (Table upserts replace the whole entity): every
   * other column (`Watermark`, `LastCronRun`, `Resync`) is written back as read.
   */
  async updateRunState(jobName: string, change: Partial<RunState>): Promise<void> {
    assertTableKey('job', jobName);
    const row = await this.table.get(WATERMARK_PARTITION, jobName);
    const properties = row?.properties ?? {};
    const state = { ...readRunState(properties), ...change };
    await this.table.upsert({ partitionKey: WATERMARK_PARTITION, rowKey: jobName, properties: { ...properties, ...runStateColumns(state) } });
  }
}
