import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SourcePage } from '../../../connectors/base/source-connector';
import type { DetectionDependencies } from '../../../src/detect/detection-dependencies';
import { ProcessJobsForRetrievalInOrderService } from '../../../src/detect/process-jobs-service';
import { WatermarkService } from '../../../src/detect/watermark-service';
import { RunStateService } from '../../../src/detect/run-state-service';
import type { Job } from '../../../src/model/job';
import { createQueueMessage } from '../../../src/model/queue-message';
import { DEFAULT_QUEUES } from '../../../src/platform/queue-topology';
import { SqliteTableStorage } from '../../../src/storage/sqlite-table-storage';
import type { TableStore } from '../../../src/storage/table-store';
import { FakeClock } from '../../support/fake-clock';

/**
 * With the data folder full, run state could not be written, the failure backoff was lost with
 * it, and a failing job was started again on every tick (all 20k source rows re-read every 2 s).
 * The backoff now holds in memory while the store fails. Real local table store (SQLite), its
 * writes failing as a full disk fails them; a fake clock.
 */
describe('failure backoff when run state cannot be written', () => {
  const job = { name: 'accounts', mapping: 'm', source: 'src', priority: 'normal', watermark: { type: 'datetime', field: 'modified_at' } } as unknown as Job;
  let dir: string;
  let storage: SqliteTableStorage;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-backoff-'));
    storage = SqliteTableStorage.open(dir);
  });
  afterEach(async () => {
    await storage.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function rig(options: { failReads?: boolean } = {}) {
    const table = await storage.table('watermark');
    const faults = { writes: true, reads: options.failReads ?? false };
    const full = () => new Error('SQLITE_FULL: database or disk is full');
    const failing: TableStore = new Proxy(table, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== 'function') return value;
        const isWrite = ['upsert', 'delete', 'submitBatch'].includes(String(prop));
        return async (...args: unknown[]) => {
          if ((isWrite && faults.writes) || (!isWrite && faults.reads)) throw full();
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const clock = new FakeClock('2026-03-01T00:00:00Z');
    let reads = 0;
    const warnings: string[] = [];
    const watermarks = new WatermarkService(failing);
    const runStates = new RunStateService(failing);
    const deps = {
      config: { ensureInitialized: async () => undefined, getJob: () => job, getMapping: () => ({ name: 'm', source: { entity: 'accounts', key: ['id'] }, target: { entity: 'customers', key: ['id'] }, fields: [] }) },
      // LastCronRun is never written while the store fails: the job stays due on every tick.
      dueJobs: async () => [job],
      watermarks,
      runStates,
      sources: {
        source: async () => ({
          close: async () => undefined,
          async *retrieveChanges(): AsyncIterable<SourcePage> {
            reads++;
            const message = createQueueMessage({ jobName: job.name, action: 'NewUpdate' as never, sourceKey: 'A-1', targetKey: { id: 'A-1' }, changeTracker: '2026-01-01T00:00:00.0000000Z', fields: {} });
            yield { messages: [message], timeStamps: [], lastChangeTracker: message.changeTracker, rowCount: 1, cursor: '', hasMore: false };
          },
        }),
      },
      newSender: () => ({ addMessageOrSend: async () => undefined, flushBatch: async () => undefined, sentCounts: () => ({}) }),
      queues: DEFAULT_QUEUES,
      clock,
      metrics: { track: () => undefined },
      log: { info: () => undefined, warn: (m: string) => void warnings.push(m), error: () => undefined },
      runSettings: { checkpointIntervalMs: 5_000, retryBaseMs: 30_000, retryMaxMs: 30 * 60_000, queueDepthLimit: 0 },
    } as unknown as DetectionDependencies;
    return { service: new ProcessJobsForRetrievalInOrderService(deps), clock, faults, warnings, reads: () => reads, watermarks, runStates };
  }

  it('holds the wait in memory, doubles it, and a success clears it', async () => {
    const r = await rig();
    const [first] = await r.service.execute();
    expect(first).toMatchObject({ outcome: 'Failed', error: 'SQLITE_FULL: database or disk is full', retryAt: new Date('2026-03-01T00:00:30Z') });
    expect(r.warnings).toContain('job "accounts": backoff held in memory until 2026-03-01T00:00:30.000Z (run state not writable)');

    // The old behaviour: a tick every 2 s started the job again. Now the ticks leave it alone.
    for (let i = 0; i < 14; i++) {
      await r.clock.advance(2_000);
      expect(await r.service.execute()).toEqual([]);
    }
    expect(r.reads()).toBe(1);

    await r.clock.advance(2_000); // 00:00:30
    const [second] = await r.service.execute();
    expect(second).toMatchObject({ outcome: 'Failed', retryAt: new Date('2026-03-01T00:01:30Z') });
    expect(r.reads()).toBe(2);
    await r.clock.advance(59_000);
    expect(await r.service.execute()).toEqual([]);

    r.faults.writes = false;
    await r.clock.advance(1_000);
    const [recovered] = await r.service.execute();
    expect(recovered.outcome).toBe('Succeeded');
    expect(recovered.retryAt).toBeUndefined();
    expect(await r.service.execute()).toHaveLength(1);
    expect(r.reads()).toBe(4);
  });

  it('holds when the run state cannot even be read', async () => {
    const r = await rig({ failReads: true });
    const [first] = await r.service.execute();
    expect(first).toMatchObject({ outcome: 'Failed', retryAt: new Date('2026-03-01T00:00:30Z') });
    await r.clock.advance(29_000);
    expect(await r.service.execute()).toEqual([]);
    expect(r.warnings).toContain('run states not readable, backing off failed jobs from memory: SQLITE_FULL: database or disk is full');
    await r.clock.advance(1_000);
    expect(await r.service.execute()).toHaveLength(1);
  });

  it('keeps the stored retry time when the store can write it', async () => {
    const r = await rig();
    r.faults.writes = false;
    // The watermark write alone fails: the run state is stored, and memory agrees with it.
    const real = r.watermarks.updateWatermarkByJobName.bind(r.watermarks);
    r.watermarks.updateWatermarkByJobName = async () => {
      throw new Error('the watermark write failed');
    };
    const [first] = await r.service.execute();
    expect(first).toMatchObject({ outcome: 'Failed', retryAt: new Date('2026-03-01T00:00:30Z') });
    expect(await r.runStates.getRunState('accounts')).toMatchObject({ failures: 1, retryAt: new Date('2026-03-01T00:00:30Z') });
    expect(r.warnings).toEqual([]);
    r.watermarks.updateWatermarkByJobName = real;
    await r.clock.advance(10_000);
    expect(await r.service.execute()).toEqual([]);
  });
});
