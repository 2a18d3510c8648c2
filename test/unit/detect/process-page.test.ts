import type { SourceConnector, SourcePage } from '../../../connectors/base/source-connector';
import { toOutgoingMessage } from '../../../src/bus/message-properties';
import { ServiceBusService } from '../../../src/bus/service-bus-service';
import type { DetectionDependencies } from '../../../src/detect/detection-dependencies';
import { runGetChangesActivity, type GetChangesActivityDependencies } from '../../../src/detect/durable/get-changes-activity';
import type { JobRunResult } from '../../../src/detect/job-run';
import { detectChanges } from '../../../src/detect/read-changes';
import { JobActionType, type Job } from '../../../src/model/job';
import type { Mapping } from '../../../src/model/mapping';
import { createQueueMessage, deserializeQueueMessage, type QueueMessage } from '../../../src/model/queue-message';
import { WatermarkValue } from '../../../src/model/watermark-value';
import { allQueueNames, DEFAULT_QUEUES } from '../../../src/platform/queue-topology';
import { silentLogger } from '../../../src/telemetry/logger';
import { InMemoryMetrics } from '../../../src/telemetry/metrics';
import { FakeClock } from '../../support/fake-clock';
import { InMemorySendBus } from '../bus/support/in-memory-send-bus';

const JOB: Job = {
  name: 'accounts',
  order: 10,
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
  skipUnchanged: true,
  skipFailedRows: true,
  lookbackSeconds: 0,
};
const MAPPING = { name: 'accounts', source: { entity: 'accounts', key: ['id'] }, target: { entity: 'customers', key: ['id'] }, fields: [] } as unknown as Mapping;
const LIMIT = 2_000;

function change(n: number, name = `n${n}`): QueueMessage {
  const changeTracker = `2026-01-0${n}T00:00:00.0000000Z`;
  return createQueueMessage({ jobName: JOB.name, action: JobActionType.NewUpdate, sourceKey: `A-${n}`, targetKey: { id: `A-${n}` }, changeTracker, fields: { name } });
}
const huge = () => change(5, 'x'.repeat(3_000));

/**
 * A source that hands out work (an outbox): one page of a timestamp-only change, a row it could
 * not read, a change over the queue's size limit, one already applied and one to send (last, so
 * that only the flush before the acknowledgement puts it on the bus).
 */
function outbox(events: string[]): SourceConnector {
  return {
    async *retrieveChanges(): AsyncIterable<SourcePage> {
      const skipped = [{ sourceKey: 'A-2', changeTracker: '2026-01-02T00:00:00.0000000Z', error: 'field "x": not a number' }];
      const timeStamps = [{ changeTracker: '2026-01-01T00:00:00.0000000Z' }];
      yield { messages: [huge(), change(3), change(4)], timeStamps, skipped, lastChangeTracker: huge().changeTracker, rowCount: 5, cursor: 'outbox:5', hasMore: false } as SourcePage;
    },
    acknowledge: async (page, refused = []) => void events.push(`ack ${page.messages.length}${refused.map((r) => ` refused ${r.message.sourceKey}`).join('')}`),
    close: async () => undefined,
  };
}

/** One bus, its batches recorded among the source's events, and the shared dependencies. */
function rig() {
  const events: string[] = [];
  const bus = new InMemorySendBus(allQueueNames(DEFAULT_QUEUES), LIMIT);
  const sendBatch = bus.sendBatch.bind(bus);
  bus.sendBatch = async (batch) => {
    await sendBatch(batch);
    events.push(`batch of ${batch.count}`);
  };
  const shared = {
    config: { ensureInitialized: async () => undefined, getJob: () => JOB, getMapping: () => MAPPING },
    sources: { source: async () => outbox(events) },
    newSender: () => new ServiceBusService({ bus, queues: DEFAULT_QUEUES }),
    unchanged: { unchanged: async (_job: Job, messages: QueueMessage[]) => new Set(messages.filter((m) => m.sourceKey === 'A-3')) },
    metrics: new InMemoryMetrics(),
    log: silentLogger,
  };
  const sent = () => (bus.sent.get('sbqnormal') ?? []).map((m) => deserializeQueueMessage(m.body)).map((m) => `${m.sourceKey} resync ${m.resync}`);
  return { events, shared, sent };
}

const TOO_LARGE = `message of job 'accounts' for source key 'A-5' is too large for queue 'sbqnormal': its body is ${Buffer.byteLength(toOutgoingMessage({ ...huge(), resync: 'r1' }).body as string, 'utf8')} bytes, over the queue's size limit of ${LIMIT} bytes`;
const SKIPPED_ROWS = [
  { sourceKey: 'A-2', changeTracker: '2026-01-02T00:00:00.0000000Z', error: 'field "x": not a number' },
  { sourceKey: 'A-5', changeTracker: '2026-01-05T00:00:00.0000000Z', error: TOO_LARGE },
];

describe('one page, the same on the timer and the durable path', () => {
  it('the timer run: counts, skips, leaves the unchanged unsent, stamps resync, batches, then acknowledges', async () => {
    const { events, shared, sent } = rig();
    const deps = { ...shared, clock: new FakeClock('2026-02-01T00:00:00Z'), queues: DEFAULT_QUEUES } as unknown as DetectionDependencies;
    const watermark = WatermarkValue.initialize('datetime', null, () => undefined, JOB.name);
    const run = { jobName: JOB.name, detected: 0, timeStamps: 0, sentByQueue: {} } as unknown as JobRunResult;
    await detectChanges(deps, { job: JOB, watermark, run, dryRun: false, limit: 0, resync: 'r1', listeners: new Set() });

    expect(sent()).toEqual(['A-4 resync r1']);
    expect(events).toEqual(['batch of 1', 'ack 3 refused A-5']);
    expect(run).toMatchObject({ detected: 5, timeStamps: 2, skipped: 2, sentByQueue: { sbqnormal: 1 } });
    expect(run.skippedRows).toEqual(SKIPPED_ROWS);
    expect(watermark.value).toBe('2026-01-05T00:00:00.0000000Z');
  });

  it('the durable activity: the same sends, counts, skipped rows, acknowledgement and watermark', async () => {
    const { events, shared, sent } = rig();
    const deps: GetChangesActivityDependencies = {
      ...shared,
      watermarks: { getWatermarkByJobName: async (jobName) => ({ jobName, watermark: null, lastCronRun: null, persisted: false, resync: 'r1' }) },
    };
    const result = await runGetChangesActivity(deps, { jobName: JOB.name, pageNumber: 0 });

    expect(sent()).toEqual(['A-4 resync r1']);
    expect(events).toEqual(['batch of 1', 'ack 3 refused A-5']);
    expect(result).toMatchObject({ detected: 5, sent: 1, skipped: 2, resync: 'r1', watermark: '2026-01-05T00:00:00.0000000Z', hasMoreRecord: false });
    expect(result.skippedRows).toEqual(SKIPPED_ROWS);
  });
});
