import { pairJobName } from '../../model/pair';
import type { TableStorage } from '../../storage/table-store';
import { UsageError } from '../cli-error';

/**
 * What a job leaves in storage besides its watermark: applied hashes (which records
 * `skipUnchanged` skips) and recorded deletions (which older upserts are outdated). A reset that
 * keeps them is no reset: the hashes say "unchanged" and the re-read records are never sent.
 *
 * The stores' modules load on use: every CLI start registers the commands that import this file.
 */

/** Deletes every applied hash of `jobName` (all its partitions). @returns how many were deleted. */
export async function clearAppliedHashes(storage: TableStorage, jobName: string): Promise<number> {
  const { APPLIED_HASHES_TABLE, appliedHashPartitions } = await import('../../process/applied-hash-store');
  const table = await storage.table(APPLIED_HASHES_TABLE);
  const rows = (await Promise.all(appliedHashPartitions(jobName).map((p) => table.queryPartition(p)))).flat();
  await table.submitBatch(rows.map((row) => ({ kind: 'delete', partitionKey: row.partitionKey, rowKey: row.rowKey })));
  return rows.length;
}

/** Deletes the recorded deletions of these jobs (rows carry `JobName`). @returns how many were deleted. */
export async function clearDeletions(storage: TableStorage, jobNames: ReadonlySet<string>): Promise<number> {
  const { DELETIONS_TABLE } = await import('../../process/deletion-store');
  const table = await storage.table(DELETIONS_TABLE);
  const rows = (await table.list()).filter((row) => jobNames.has(String(row.properties.JobName)));
  await table.submitBatch(rows.map((row) => ({ kind: 'delete', partitionKey: row.partitionKey, rowKey: row.rowKey })));
  return rows.length;
}

/** A job as far as the watermark commands need it (a pair's two jobs included). */
export interface StoredJob {
  name: string;
  /** The job's `watermark.type` as configured (e.g. `datetime`); undefined when none is stored. */
  watermarkType?: string;
}

/**
 * The jobs in the configuration tables, read without validating the rest of the configuration
 * (a broken mapping must not stop a watermark reset).
 */
export async function storedJobs(storage: TableStorage): Promise<StoredJob[]> {
  const [{ CONFIG_TABLES, CONFIG_PARTITION }, { decodeJsonProperties }] = await Promise.all([import('../../config/config-store'), import('../../storage/entity-codec')]);
  const rows = await (await storage.table(CONFIG_TABLES.jobs)).queryPartition(CONFIG_PARTITION);
  const stored = (name: string, type: unknown): StoredJob => ({ name, ...(typeof type === 'string' ? { watermarkType: type } : {}) });
  const jobs = rows.map((row) => {
    const definition = decodeJsonProperties(`job ${JSON.stringify(row.rowKey)}`, row.properties) as { watermark?: { type?: unknown } };
    return stored(row.rowKey, definition?.watermark?.type);
  });
  // A pair is stored as the pair; its two jobs (one per side's watermark) are named after it.
  const pairRows = await (await storage.table(CONFIG_TABLES.pairs)).queryPartition(CONFIG_PARTITION);
  for (const row of pairRows) {
    type Side = { watermark?: { type?: unknown } } | undefined;
    const definition = decodeJsonProperties(`pair ${JSON.stringify(row.rowKey)}`, row.properties) as { a?: Side; b?: Side };
    for (const side of ['a', 'b'] as const) jobs.push(stored(pairJobName(row.rowKey, side), definition?.[side]?.watermark?.type));
  }
  return jobs;
}

/** How a user gets a configuration into the tables, for "unknown job" errors. */
export const PUSH_HINT = 'push a config folder with `highwater config push --config DIR`';

/**
 * The job named `name`. @throws UsageError naming the known jobs, and how to get a configuration
 * into the tables when there is none.
 */
export function requireJob<T extends { name: string }>(jobs: readonly T[], name: string, where: string): T {
  const job = jobs.find((j) => j.name === name);
  if (job) return job;
  if (jobs.length === 0) throw new UsageError(`unknown job ${JSON.stringify(name)}: there are no jobs in ${where}; ${PUSH_HINT}, or pass --config DIR`);
  throw new UsageError(`unknown job ${JSON.stringify(name)} in ${where}; known jobs: ${jobs.map((j) => j.name).sort().join(', ')}`);
}
