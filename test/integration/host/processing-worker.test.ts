import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultConnectorRegistry } from '../../../connectors/default-registry';
import { readSettings, type Settings } from '../../../src/platform/settings';
import { startLocalHost } from '../../../src/host/local-host';
import { DEFAULT_PROCESSING_MODE, processingMode } from '../../../src/host/processing-mode';
import { MAX_QUICK_FAILURES, ProcessingWorker } from '../../../src/host/processing-worker';
import type { WorkerResult } from '../../../src/host/processing-worker-protocol';
import { silentLogger, type Logger } from '../../../src/telemetry/logger';
import { InMemoryMetrics } from '../../../src/telemetry/metrics';

const until = async (condition: () => boolean, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('HIGHWATER_LOCAL_PROCESSING', () => {
  it('reads worker or inline in any case; unset is the default', () => {
    expect(processingMode(undefined)).toBe(DEFAULT_PROCESSING_MODE);
    expect(processingMode(' Inline ')).toBe('inline');
    expect(processingMode('WORKER')).toBe('worker');
    expect(readSettings({ HIGHWATER_LOCAL_PROCESSING: 'inline' }).localProcessing).toBe('inline');
  });

  it('stops the host before anything starts on another value, naming the setting and the value', async () => {
    expect(() => processingMode('threads')).toThrow('HIGHWATER_LOCAL_PROCESSING: must be worker or inline, got "threads"');
    expect(() => readSettings({ HIGHWATER_LOCAL_PROCESSING: 'threads' })).toThrow('app settings: HIGHWATER_LOCAL_PROCESSING: must be worker or inline, got "threads"');
    const settings: Settings = { ...readSettings({}), localProcessing: 'threads' };
    await expect(startLocalHost({ configDir: '/nonexistent', settings, port: 0, log: silentLogger })).rejects.toThrow(
      'HIGHWATER_LOCAL_PROCESSING: must be worker or inline, got "threads"',
    );
  });

  it('refuses a worker with a registry of its own (it cannot cross to another thread)', async () => {
    await expect(
      startLocalHost({ configDir: '/nonexistent', settings: readSettings({}), port: 0, log: silentLogger, processing: 'worker', registry: defaultConnectorRegistry() }),
    ).rejects.toThrow("processing 'worker' cannot use the registry option: a worker thread builds its own from the settings; use processing 'inline'");
  });
});

describe('ProcessingWorker', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'hw-processing-worker-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const data = (settings: Settings) => ({ settings, configDir: dir, concurrency: { high: 8, normal: 8, low: 8 }, pollIntervalMs: 10 });
  const recordingLog = () => {
    const lines: string[] = [];
    const log: Logger = { info: () => undefined, warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
    return { lines, log };
  };

  it('rejects start with why the worker did not start', async () => {
    const notAFolder = path.join(dir, 'file');
    writeFileSync(notAFolder, '');
    const settings = { ...readSettings({}), dataDir: notAFolder };
    await expect(ProcessingWorker.start({ data: data(settings), metrics: new InMemoryMetrics(), log: silentLogger, onResult: () => undefined })).rejects.toThrow(
      `the processing worker did not start: The local bus data folder ${notAFolder}: not a folder`,
    );
  }, 30_000);

  it('hands on results and metrics, restarts a worker that dies, and gives up with a clear error after quick failures in a row', async () => {
    const { lines, log } = recordingLog();
    const results: WorkerResult[] = [];
    const metrics = new InMemoryMetrics();
    const entry = path.join(__dirname, 'support/dying-worker.ts');
    const worker = await ProcessingWorker.start({ data: data(readSettings({})), metrics, log, onResult: (r) => results.push(r), entry });
    await until(() => worker.failure !== undefined);
    expect(worker.failure?.message).toBe(`the processing worker failed ${MAX_QUICK_FAILURES} times in a row, processing stopped: boom in the worker`);
    const restart = 'error the processing worker stopped unexpectedly (boom in the worker): restarting it; its messages in flight are delivered again when their locks expire';
    expect(lines).toEqual([restart, restart, `error ${worker.failure?.message}`]);
    // Each of the three workers reported its one result and metric point before it died.
    expect(results.map((r) => r.messageId)).toEqual(['m1', 'm1', 'm1']);
    expect(metrics.points.map((p) => [p.name, p.value, p.dimensions])).toEqual(
      Array(3).fill(['MessagesProcessed', 1, { job: 'job', queue: 'sbqnormal', outcome: 'Success' }]),
    );
    expect(worker.busy('normal')).toBe(0);
    // What a dead worker knew of outages is gone with it (the status page shows none).
    expect(worker.targetHealth.snapshot()).toEqual([]);
    expect(worker.targetHealth.recoveries(new Date())).toEqual([]);
    await worker.stop();
  }, 30_000);

  it('shows the outage mode the worker last reported, recoveries while they last', async () => {
    const entry = path.join(__dirname, 'support/dying-worker.ts');
    const worker = await ProcessingWorker.start({ data: data(readSettings({})), metrics: new InMemoryMetrics(), log: recordingLog().log, onResult: () => {}, entry });
    await until(() => worker.targetHealth.snapshot().length > 0);
    expect(worker.targetHealth.snapshot()).toEqual([
      { connection: 'erp', since: new Date('2026-12-03T10:00:00Z'), nextProbeAt: new Date('2026-12-03T10:00:30Z'), error: 'the table does not exist', failures: 5 },
    ]);
    expect(worker.targetHealth.recoveries(new Date('2998-12-31T00:00:00Z'))).toEqual([{ connection: 'crm', until: new Date('2999-01-01T00:00:00Z') }]);
    expect(worker.targetHealth.recoveries(new Date('2999-01-01T00:00:00Z'))).toEqual([]);
    await worker.stop();
  }, 30_000);
});
