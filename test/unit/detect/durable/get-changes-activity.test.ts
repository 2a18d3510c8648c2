import type { RetrieveOptions, SourceConnector, SourcePage } from '../../../../connectors/base/source-connector';
import { runGetChangesActivity, type GetChangesActivityDependencies } from '../../../../src/detect/durable/get-changes-activity';
import { JobActionType, type Job } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage, type QueueMessage } from '../../../../src/model/queue-message';
import type { WatermarkValue } from '../../../../src/model/watermark-value';
import { silentLogger } from '../../../../src/telemetry/logger';
import { InMemoryMetrics } from '../../../../src/telemetry/metrics';
import { allQueueNames, DEFAULT_QUEUES } from '../../../../src/platform/queue-topology';
import { ServiceBusService } from '../../../../src/bus/service-bus-service';
import { deserializeQueueMessage } from '../../../../src/model/queue-message';
import { InMemorySendBus } from '../../bus/support/in-memory-send-bus';
import { BusError } from '../../../../src/bus/message-bus';
import { toOutgoingMessage } from '../../../../src/bus/message-properties';

const JOB: Job = {
  name: 'crm-accounts',
  order: 10,
  schedule: '0 */5 * * * *',
  enabled: true,
  source: 'crm',
  target: 'erp',
  mapping: 'accounts',
  priority: 'high',
  watermark: { type: 'datetime', field: 'modified_at' },
  filter: [],
  action: JobActionType.NewUpdate,
  skipOutdatedMessages: false,
  skipUnchanged: false,
  lookbackSeconds: 0,
};
const MAPPING = { name: 'accounts', source: { entity: 'accounts', key: ['id'] }, target: { entity: 'customers', key: ['crm_id'] }, fields: [] } as unknown as Mapping;

function change(n: number): QueueMessage {
  return createQueueMessage({
    jobName: JOB.name,
    action: JobActionType.NewUpdate,
    sourceKey: `A-${n}`,
    targetKey: { crm_id: `A-${n}` },
    changeTracker: `2026-01-0${n}T00:00:00.0000000Z`,
    fields: { name: `n${n}` },
  });
}

/** Change `n` with a body over 2,000 bytes, the size limit of the small bus below. */
function huge(n: number): QueueMessage {
  return createQueueMessage({ ...change(n), fields: { name: 'x'.repeat(3_000) } });
}
const TOO_LARGE = `message of job 'crm-accounts' for source key 'A-2' is too large for queue 'sbqhigh': its body is ${Buffer.byteLength(toOutgoingMessage(huge(2)).body as string, 'utf8')} bytes, over the queue's size limit of 2000 bytes`;

/** A source of `rows` changes, paged by the requested size; the cursor is the offset. */
class ListSource implements SourceConnector {
  readonly calls: Array<{ watermark: string | null; options?: RetrieveOptions }> = [];
  closedIterators = 0;
  constructor(private readonly rows: QueueMessage[]) {}
  async *retrieveChanges(_m: Mapping, _j: Job, watermark: WatermarkValue, options?: RetrieveOptions): AsyncIterable<SourcePage> {
    this.calls.push({ watermark: watermark.value, options });
    const size = options?.pageSize ?? 500;
    try {
      for (let offset = Number(options?.cursor ?? 0); offset < this.rows.length; offset += size) {
        const messages = this.rows.slice(offset, offset + size);
        const next = offset + messages.length;
        yield { messages, timeStamps: [], lastChangeTracker: messages.at(-1)?.changeTracker ?? null, rowCount: messages.length, cursor: String(next), hasMore: messages.length === size };
      }
    } finally {
      this.closedIterators++;
    }
  }
  async close() {}
}

/** The real sender over an in-memory bus with the port's batch rules; it records every send. */
function busOf(maxSizeInBytes?: number) {
  const bus = new InMemorySendBus(allQueueNames(DEFAULT_QUEUES), maxSizeInBytes);
  const sent = () => [...bus.sent].flatMap(([queue, messages]) => messages.map((m): [string, string] => [queue, deserializeQueueMessage(m.body).sourceKey]));
  return { bus, sent, newSender: () => new ServiceBusService({ bus, queues: DEFAULT_QUEUES }) };
}

function deps(source: SourceConnector, stored: string | null = null, overrides: Partial<GetChangesActivityDependencies> = {}) {
  const { bus, sent, newSender } = busOf();
  const metrics = new InMemoryMetrics();
  const watermarkReads: string[] = [];
  const d: GetChangesActivityDependencies = {
    config: { ensureInitialized: async () => undefined, getJob: (n) => (n === JOB.name ? JOB : undefined), getMapping: (n) => (n === MAPPING.name ? MAPPING : undefined) },
    watermarks: {
      getWatermarkByJobName: async (jobName) => {
        watermarkReads.push(jobName);
        return { jobName, watermark: stored, lastCronRun: null, persisted: stored !== null, resync: null };
      },
    },
    sources: { source: async (name) => (name === 'crm' ? source : Promise.reject(new Error(`no ${name}`))) },
    newSender,
    metrics,
    log: silentLogger,
    ...overrides,
  };
  return { d, sent, bus, metrics, watermarkReads };
}

describe('GetChangesActivity logic', () => {
  it('reads the first page of 3 from the stored watermark and sends its records to the job queue in one batch', async () => {
    const source = new ListSource([1, 2, 3, 4].map(change));
    const { d, sent, bus, metrics, watermarkReads } = deps(source, '2025-12-31T00:00:00.0000000Z');
    const result = await runGetChangesActivity(d, { jobName: 'crm-accounts', pageNumber: 0 });
    expect(result).toEqual({
      jobName: 'crm-accounts',
      page: 0,
      cursor: '3',
      startWatermark: '2025-12-31T00:00:00.0000000Z',
      watermark: '2026-01-03T00:00:00.0000000Z',
      hasMoreRecord: true,
      detected: 3,
      sent: 3,
    });
    expect(sent()).toEqual([['sbqhigh', 'A-1'], ['sbqhigh', 'A-2'], ['sbqhigh', 'A-3']]);
    expect(bus.sends).toEqual([{ queue: 'sbqhigh', count: 3 }]);
    expect(source.calls).toEqual([{ watermark: '2025-12-31T00:00:00.0000000Z', options: { pageSize: 3, cursor: undefined } }]);
    expect(source.closedIterators).toBe(1);
    expect(watermarkReads).toEqual(['crm-accounts']);
    expect(metrics.points.map((p) => [p.name, p.value, p.dimensions])).toEqual([['ChangesDetected', 3, { job: 'crm-accounts' }]]);
  });

  it("reads pages of the job's pageSize when it sets one, sent in batches of at most 200", async () => {
    const rows = Array.from({ length: 460 }, (_, i) => ({ ...change(1), sourceKey: `A-${i}`, changeTracker: `2026-01-01T00:00:00.${String(i).padStart(7, '0')}Z` }));
    const source = new ListSource(rows);
    const { d, sent, bus } = deps(source, null, { config: { ensureInitialized: async () => undefined, getJob: () => ({ ...JOB, pageSize: 450 }), getMapping: () => MAPPING } });
    const result = await runGetChangesActivity(d, { jobName: 'crm-accounts', pageNumber: 0 });
    expect(result).toMatchObject({ cursor: '450', hasMoreRecord: true, detected: 450, sent: 450, watermark: '2026-01-01T00:00:00.0000449Z' });
    expect(source.calls[0].options).toEqual({ pageSize: 450, cursor: undefined });
    expect(bus.sends).toEqual([
      { queue: 'sbqhigh', count: 200 },
      { queue: 'sbqhigh', count: 200 },
      { queue: 'sbqhigh', count: 50 },
    ]);
    expect(sent().map(([, key]) => key)).toEqual(rows.slice(0, 450).map((m) => m.sourceKey));
  });

  it('continues after the cursor from the run start watermark without reading storage again', async () => {
    const source = new ListSource([1, 2, 3, 4].map(change));
    const { d, sent, watermarkReads } = deps(source, '2025-12-31T00:00:00.0000000Z');
    const result = await runGetChangesActivity(d, {
      jobName: 'crm-accounts',
      pageNumber: 1,
      cursor: '3',
      startWatermark: '2025-12-31T00:00:00.0000000Z',
      watermark: '2026-01-03T00:00:00.0000000Z',
    });
    expect(result).toMatchObject({ page: 1, cursor: '4', watermark: '2026-01-04T00:00:00.0000000Z', hasMoreRecord: false, sent: 1 });
    expect(source.calls[0]).toEqual({ watermark: '2025-12-31T00:00:00.0000000Z', options: { pageSize: 3, cursor: '3' } });
    expect(sent()).toEqual([['sbqhigh', 'A-4']]);
    expect(watermarkReads).toEqual([]);
  });

  it('reports no more records when the source has nothing after the cursor', async () => {
    const { d, sent } = deps(new ListSource([1, 2, 3].map(change)));
    const result = await runGetChangesActivity(d, { jobName: 'crm-accounts', pageNumber: 1, cursor: '3', startWatermark: null, watermark: '2026-01-03T00:00:00.0000000Z' });
    expect(result).toEqual({
      jobName: 'crm-accounts',
      page: 1,
      cursor: '3',
      startWatermark: '0001-01-01T00:00:00.0000000Z',
      watermark: '2026-01-03T00:00:00.0000000Z',
      hasMoreRecord: false,
      detected: 0,
      sent: 0,
    });
    expect(sent()).toEqual([]);
  });

  it('counts but does not send changes a skipUnchanged job has already applied', async () => {
    const rows = [1, 2].map(change);
    const job = { ...JOB, skipUnchanged: true };
    const { d, sent } = deps(new ListSource(rows), null, {
      config: { ensureInitialized: async () => undefined, getJob: () => job, getMapping: () => MAPPING },
      unchanged: { unchanged: async (_job, messages) => new Set(messages.filter((m) => m.sourceKey === 'A-1')) },
    });
    const result = await runGetChangesActivity(d, { jobName: 'crm-accounts', pageNumber: 0 });
    expect(result).toMatchObject({ detected: 2, sent: 1, watermark: '2026-01-02T00:00:00.0000000Z' });
    expect(sent()).toEqual([['sbqhigh', 'A-2']]);
  });

  it('with skipFailedRows counts the rows the source skipped and the messages the queue refused as too large', async () => {
    const job = { ...JOB, skipFailedRows: true };
    const skippedRow = { sourceKey: 'A-0', changeTracker: '2026-01-05T00:00:00.0000000Z', error: 'field "x": not a number' };
    const source: SourceConnector = {
      async *retrieveChanges() {
        yield { messages: [change(1), huge(2)], timeStamps: [], skipped: [skippedRow], lastChangeTracker: skippedRow.changeTracker, rowCount: 3, cursor: '3', hasMore: false };
      },
      close: async () => undefined,
    };
    const small = busOf(2_000);
    const { d } = deps(source, null, { config: { ensureInitialized: async () => undefined, getJob: () => job, getMapping: () => MAPPING }, newSender: small.newSender });
    const result = await runGetChangesActivity(d, { jobName: 'crm-accounts', pageNumber: 0 });
    expect(result).toMatchObject({ detected: 3, sent: 1, skipped: 2, watermark: '2026-01-05T00:00:00.0000000Z' });
    expect(result.skippedRows).toEqual([skippedRow, { sourceKey: 'A-2', changeTracker: '2026-01-02T00:00:00.0000000Z', error: TOO_LARGE }]);
    expect(small.sent()).toEqual([['sbqhigh', 'A-1']]);

    // Without the option the refusal stops the page: the orchestration records the job as failed.
    const strict = deps(source, null, { config: { ...d.config, getJob: () => JOB }, newSender: busOf(2_000).newSender });
    await expect(runGetChangesActivity(strict.d, { jobName: 'crm-accounts', pageNumber: 0 })).rejects.toMatchObject({ name: 'PermanentError', message: TOO_LARGE });
  });

  it('acknowledges a page to a source that hands out work only after its messages are on the bus', async () => {
    const events: string[] = [];
    /** A source whose pages must be acknowledged (an outbox; one with refused messages: process-page.test.ts). */
    const handingOut = (): SourceConnector => ({
      async *retrieveChanges() {
        yield { messages: [1, 2].map(change), timeStamps: [], lastChangeTracker: change(2).changeTracker, rowCount: 2, cursor: 'outbox:2', hasMore: true };
      },
      acknowledge: async (page) => void events.push(`ack ${page.messages.map((m) => m.sourceKey).join(',')}`),
      close: async () => undefined,
    });
    /** A bus that records each batch it sends among the source's events. */
    const recording = () => {
      const bus = new InMemorySendBus(allQueueNames(DEFAULT_QUEUES));
      const sendBatch = bus.sendBatch.bind(bus);
      bus.sendBatch = async (batch) => {
        await sendBatch(batch);
        events.push(`send ${(batch as unknown as { messages: Array<{ body: string }> }).messages.map((m) => deserializeQueueMessage(m.body).sourceKey).join(',')}`);
      };
      return { bus, newSender: () => new ServiceBusService({ bus, queues: DEFAULT_QUEUES }) };
    };
    await runGetChangesActivity(deps(handingOut(), null, { newSender: recording().newSender }).d, { jobName: 'crm-accounts', pageNumber: 0 });
    expect(events).toEqual(['send A-1,A-2', 'ack A-1,A-2']);

    // A send that fails fails the page before any acknowledgement.
    events.length = 0;
    const down = recording();
    down.bus.failNextSend = new BusError('Unavailable', 'bus down');
    await expect(runGetChangesActivity(deps(handingOut(), null, { newSender: down.newSender }).d, { jobName: 'crm-accounts', pageNumber: 0 })).rejects.toThrow('bus down');
    expect(events).toEqual([]);
  });

  it('fails with a permanent error for an unknown job', async () => {
    const { d } = deps(new ListSource([]));
    await expect(runGetChangesActivity(d, { jobName: 'nope', pageNumber: 0 })).rejects.toMatchObject({ name: 'PermanentError', message: 'unknown job "nope"' });
  });

  it.each([
    [null, 'GetChangesActivity input: expected an object'],
    [{ pageNumber: 0 }, 'GetChangesActivity input.jobName: expected a job name'],
    [{ jobName: 'crm-accounts', pageNumber: -1 }, 'GetChangesActivity input.pageNumber: expected an integer >= 0'],
    [{ jobName: 'crm-accounts', pageNumber: 1, cursor: 3 }, 'GetChangesActivity input.cursor: expected a string'],
    [{ jobName: 'crm-accounts', pageNumber: 1, watermark: 5 }, 'GetChangesActivity input.watermark: expected a string or null'],
  ])('rejects the input %j', async (input, message) => {
    const { d } = deps(new ListSource([]));
    await expect(runGetChangesActivity(d, input)).rejects.toMatchObject({ name: 'PermanentError', message });
  });
});
