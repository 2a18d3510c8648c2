import os from 'node:os';
import path from 'node:path';
import type { BusMessage, MessageBus, QueueCounts } from '../../../../src/bus/message-bus';
import { readSettings } from '../../../../src/platform/settings';
import type { JobRunResult } from '../../../../src/detect/job-run';
import { JobService } from '../../../../src/detect/job-service';
import { HostStats } from '../../../../src/host/host-stats';
import type { StatusRoutesContext } from '../../../../src/host/status/status-routes';
import { JobActionType, type Job } from '../../../../src/model/job';
import type { WatermarkRecord, WatermarkStore } from '../../../../src/model/watermark-record';
import { InMemoryMetrics } from '../../../../src/telemetry/metrics';
import { DEFAULT_QUEUES } from '../../../../src/platform/queue-topology';

export const NOW = new Date('2026-06-01T10:30:30Z');

export function job(name: string, overrides: Partial<Job> = {}): Job {
  return {
    name,
    order: 100,
    schedule: '0 */5 * * * *',
    enabled: true,
    source: 'crm',
    target: 'erp',
    mapping: 'accounts',
    priority: 'normal',
    watermark: { type: 'datetime', field: 'modified_at' },
    filter: [],
    action: JobActionType.NewUpdate,
    skipOutdatedMessages: false,
    skipUnchanged: false,
    pageSize: 500,
    lookbackSeconds: 0,
    ...overrides,
  };
}

export function run(jobName: string, startedAt: string, overrides: Partial<JobRunResult> = {}): JobRunResult {
  return {
    jobName,
    trigger: 'scheduled',
    startedAt: new Date(startedAt),
    endedAt: new Date(new Date(startedAt).getTime() + 250),
    detected: 3,
    sentByQueue: { sbqhigh: 2 },
    timeStamps: 1,
    watermarkBefore: null,
    watermarkAfter: null,
    outcome: 'Succeeded',
    ...overrides,
  };
}

export function busMessage(messageId: string, properties: BusMessage['applicationProperties'], extra: Partial<BusMessage> = {}): BusMessage {
  return {
    body: new Uint8Array(),
    messageId,
    applicationProperties: properties,
    sequenceNumber: '1',
    deliveryCount: 1,
    enqueuedTime: NOW,
    expiresAt: NOW,
    ...extra,
  };
}

/** `JobService.nextRun` never reads watermarks. */
const unusedWatermarkStore: WatermarkStore = {
  getWatermarkByJobName: () => Promise.reject(new Error('not used')),
  getAllWatermarks: () => Promise.reject(new Error('not used')),
  updateWatermarkByJobName: () => Promise.reject(new Error('not used')),
  resetWatermark: () => Promise.reject(new Error('not used')),
};

/** The status pages only count and peek; anything else would be a bug. */
const notUsed = () => Promise.reject(new Error('not used by the status pages'));
const unusedBus: MessageBus = {
  send: notUsed,
  createBatch: notUsed,
  sendBatch: notUsed,
  receive: notUsed,
  renewLock: notUsed,
  complete: notUsed,
  completeMany: notUsed,
  abandon: notUsed,
  deadLetter: notUsed,
  peek: notUsed,
  counts: notUsed,
  listQueues: notUsed,
  close: notUsed,
};

/** Fakes for everything the status page reads; each part can be replaced per test. */
export function statusFixture() {
  const jobs = [
    job('crm-accounts-to-erp', { order: 10, priority: 'high', schedule: '*/10 * * * * *' }),
    job('crm-contacts-to-erp', { order: 20 }),
    job('erp-numbers-to-crm', { order: 40, enabled: false, watermark: { type: 'number', field: 'id' } }),
  ];
  const watermarks = new Map<string, WatermarkRecord>([
    ['crm-accounts-to-erp', { jobName: 'crm-accounts-to-erp', watermark: '2026-06-01T10:25:30.0000000Z', lastCronRun: new Date('2026-06-01T10:30:20Z'), persisted: true, resync: null }],
    ['erp-numbers-to-crm', { jobName: 'erp-numbers-to-crm', watermark: '17', lastCronRun: null, persisted: true, resync: null }],
  ]);
  const runs: JobRunResult[] = [
    run('crm-accounts-to-erp', '2026-06-01T10:30:20Z'),
    run('crm-contacts-to-erp', '2026-06-01T10:30:21Z', { outcome: 'Failed', error: 'source <crm> unavailable', sentByQueue: {} }),
    run('crm-accounts-to-erp', '2026-06-01T10:30:10Z', { trigger: 'manual' }),
  ];
  const counts: Record<string, QueueCounts> = {
    sbqhigh: { active: 4, scheduled: 0, deadLetter: 2 },
    sbqtransitivenormal: { active: 1, scheduled: 0, deadLetter: 0 },
  };
  const peeked: Record<string, BusMessage[]> = {
    'sbqhigh/deadLetter': [
      busMessage('m1', { JobName: 'crm-accounts-to-erp', ErrorMessage: 'customer 7: 400 invalid vat' }),
      busMessage('m2', { JobName: 'crm-accounts-to-erp' }, { deadLetterReason: 'MaxDeliveryCountExceeded' }),
    ],
    sbqtransitivenormal: [busMessage('m3', { JobName: 'crm-contacts-to-erp', ErrorMessage: 'account 9 missing' })],
  };
  const metrics = new InMemoryMetrics(1000, { now: () => NOW });
  const stats = new HostStats(new Date('2026-06-01T09:00:00Z'));
  const sources: StatusRoutesContext['runtime'] = {
    // A data folder that does not exist: no metrics file of another run is read.
    settings: { ...readSettings({}, os.tmpdir()), dataDir: path.join(os.tmpdir(), 'highwater-status-fixture-no-data'), queues: DEFAULT_QUEUES },
    init: { ensureInitialized: async () => ({ jobs, connections: [], mappings: [], pairs: [] }) },
    watermarks: { getAllWatermarks: async () => new Map(watermarks) },
    jobs: new JobService({ jobs: () => jobs, watermarks: unusedWatermarkStore, timeZone: 'UTC' }),
    runLog: {
      latest: async (jobName?: string, limit = 20) =>
        runs
          .filter((r) => !jobName || r.jobName === jobName)
          .sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime())
          .slice(0, limit),
    },
    bus: {
      ...unusedBus,
      counts: async (queue: string) => counts[queue] ?? { active: 0, scheduled: 0, deadLetter: 0 },
      peek: async (queue: string, options?: { subQueue?: string; maxMessages?: number }) =>
        (peeked[options?.subQueue ? `${queue}/${options.subQueue}` : queue] ?? []).slice(0, options?.maxMessages ?? 100),
    },
    metrics,
    clock: { now: () => NOW },
  };
  return { jobs, watermarks, runs, counts, peeked, metrics, stats, sources };
}
