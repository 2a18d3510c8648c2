import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import type { ConnectorRegistry } from '../../../connectors/base/registry';
import { createBus } from '../../../src/bus/create-bus';
import { readSettings, type Settings } from '../../../src/platform/settings';
import type { JobRunResult } from '../../../src/detect/job-run';
import { deserializeQueueMessage, type QueueMessage } from '../../../src/model/queue-message';
import type { WatermarkRecord } from '../../../src/model/watermark-record';
import { createRuntime, type Runtime } from '../../../src/runtime/runtime';
import { openTableStorage } from '../../../src/storage/table-client-factory';
import { silentLogger } from '../../../src/telemetry/logger';
import { flakyBus, flakyStorage, type FlakyBus, type FlakyStorage } from './faults';
import type { ConnectionEntry, SourceDb } from './source-db';

/**
 * The real runtime (files config, SQL source, ServiceBusService, local bus, Azurite tables) on a
 * test's own config folder and bus file; bus and storage are wrapped so tests can cut them off.
 */
export interface DetectRig {
  runtime: Runtime;
  bus: FlakyBus;
  storage: FlakyStorage;
  /** Runs one job now (trigger `manual`). */
  run(jobName: string): Promise<JobRunResult>;
  /** Receives and completes everything in the work queues: the messages sent so far, per queue in send order. */
  take(): Promise<QueueMessage[]>;
  watermark(jobName: string): Promise<WatermarkRecord>;
  close(): Promise<void>;
}

export interface RigOptions {
  db: SourceDb;
  storageConnectionString: string;
  mappings: object[];
  jobs: object[];
  /** Beside `source` (the database of `db`). */
  connections?: ConnectionEntry[];
  /** Default: every connector Highwater ships. */
  registry?: ConnectorRegistry;
}

export async function openRig(options: RigOptions): Promise<DetectRig> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-detect-rig-'));
  const config = {
    connections: [options.db.connection('source'), ...(options.connections ?? [])],
    mappings: options.mappings,
    jobs: options.jobs,
  };
  for (const kind of ['connections', 'mappings', 'jobs'] as const) {
    fs.writeFileSync(path.join(dir, `${kind}.yaml`), stringify({ [kind]: config[kind] }));
  }
  const settings: Settings = { ...readSettings({}), storageConnectionString: options.storageConnectionString, dataDir: path.join(dir, 'data') };
  const storage = flakyStorage(await openTableStorage(settings));
  const bus = flakyBus(await createBus(settings));
  const runtime = await createRuntime({
    settings,
    configDir: dir,
    log: silentLogger,
    env: options.db.env,
    storage: storage.storage,
    bus: bus.bus,
    ...(options.registry ? { registry: options.registry } : {}),
  });
  const workQueues = Object.values(settings.queues.work);
  return {
    runtime,
    bus,
    storage,
    async run(jobName) {
      await runtime.init.ensureInitialized();
      return runtime.detection.runJob(runtime.init.getJob(jobName));
    },
    async take() {
      const taken: QueueMessage[] = [];
      for (const queue of workQueues) {
        for (;;) {
          const received = await runtime.bus.receive(queue, { maxMessages: 500 });
          if (received.length === 0) break;
          for (const message of received) {
            taken.push(deserializeQueueMessage(message.body));
            await runtime.bus.complete(message);
          }
        }
      }
      return taken;
    },
    watermark: (jobName) => runtime.watermarks.getWatermarkByJobName(jobName),
    async close() {
      await runtime.close();
      await bus.bus.close();
      await storage.storage.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `2026-01-01T10:MM:SS.mmmZ`: a source timestamp `minutes` (fractional allowed) after 10:00. */
export function at(minutes: number): string {
  return new Date(Date.parse('2026-01-01T10:00:00.000Z') + Math.round(minutes * 60_000)).toISOString();
}

/** The change tracker (canonical datetime, 7 fraction digits) of {@link at}. */
export function tracker(minutes: number): string {
  return at(minutes).replace(/Z$/, '0000Z');
}

/** Creates `table` (accounts-like: id, name, city, modified_at, is_deleted) in the source database. */
export async function createAccounts(db: SourceDb, table: string): Promise<void> {
  await db.exec(
    `CREATE TABLE "${table}" (id TEXT PRIMARY KEY, name TEXT, city TEXT, modified_at ${db.types.timestamp} NOT NULL, ` +
      `is_deleted ${db.types.boolean} NOT NULL DEFAULT ${db.engine === 'postgres' ? 'false' : '0'})`,
  );
  await db.exec(`CREATE INDEX "${table}_changes" ON "${table}" (modified_at, id)`);
}

/** A type alias, not an interface: it must fit `Record<string, unknown>` for `SourceDb.insert`. */
export type AccountRow = {
  id: string;
  name: string;
  city?: string;
  modified_at: string;
  is_deleted?: boolean;
};

/** A mapping from the accounts-like `table` to an ERP `customers` entity. */
export function accountMapping(name: string, table: string): object {
  return {
    name,
    source: { entity: table, key: ['id'] },
    target: { entity: 'customers', key: ['crm_id'] },
    fields: [
      { target: 'crm_id', source: 'id' },
      { target: 'name', source: 'name', operations: [{ op: 'upper' }] },
      { target: 'city', source: 'city' },
    ],
  };
}

/** A job on connection `source` (target `source` too: detection never opens the target). */
export function accountJob(name: string, mapping: string, overrides: Record<string, unknown> = {}): object {
  return {
    name,
    schedule: '0 */5 * * * *',
    source: 'source',
    target: 'source',
    mapping,
    priority: 'normal',
    watermark: { type: 'datetime', field: 'modified_at' },
    ...overrides,
  };
}

/** `[sourceKey, action, changeTracker]` of each message, for exact comparisons. */
export function summary(messages: readonly QueueMessage[]): Array<[string, string, string]> {
  return messages.map((m) => [m.sourceKey, m.action, m.changeTracker]);
}

/** Rows `prefix-<from>` … `prefix-<to>` (zero-padded), one every `stepMinutes` from `startMinutes`. */
export function accountRows(prefix: string, from: number, to: number, startMinutes: number, stepMinutes: number): AccountRow[] {
  const rows: AccountRow[] = [];
  for (let i = from; i <= to; i++) {
    rows.push({ id: `${prefix}-${String(i).padStart(5, '0')}`, name: `name ${i}`, city: 'Berlin', modified_at: at(startMinutes + (i - from) * stepMinutes) });
  }
  return rows;
}
