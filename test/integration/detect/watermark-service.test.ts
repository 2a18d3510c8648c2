import os from 'node:os';
import { WATERMARK_PARTITION, WATERMARK_TABLE } from '../../../src/model/watermark-record';
import { WatermarkService } from '../../../src/detect/watermark-service';
import { RunStateService } from '../../../src/detect/run-state-service';
import { openTableStorage } from '../../../src/storage/table-client-factory';
import type { TableStorage } from '../../../src/storage/table-store';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';

let azurite: TestAzurite;
let storage: TableStorage;
let service: WatermarkService;

beforeAll(async () => {
  azurite = await startTestAzurite();
  storage = await openTableStorage({ storageConnectionString: azurite.connectionString, dataDir: os.tmpdir() });
  service = await WatermarkService.open(storage);
});

afterAll(async () => {
  await storage?.close();
  await azurite?.stop();
});

describe('WatermarkService', () => {
  it('returns an unsaved record for a job without a row', async () => {
    expect(await service.getWatermarkByJobName('wm-missing')).toEqual({ jobName: 'wm-missing', watermark: null, lastCronRun: null, persisted: false, resync: null });
  });

  it('writes unconditionally and reads back the columns Watermark and LastCronRun', async () => {
    const ran = new Date('2026-05-01T10:00:00.000Z');
    await service.updateWatermarkByJobName('wm-update', '2026-05-01T09:59:58.123Z', ran);
    expect(await service.getWatermarkByJobName('wm-update')).toEqual({ jobName: 'wm-update', watermark: '2026-05-01T09:59:58.123Z', lastCronRun: ran, persisted: true, resync: null });
    const row = await (await storage.table(WATERMARK_TABLE)).get(WATERMARK_PARTITION, 'wm-update');
    expect(row?.properties).toEqual({ Watermark: '2026-05-01T09:59:58.123Z', LastCronRun: ran });
    // Last writer wins, even with an older value: the service only persists.
    await service.updateWatermarkByJobName('wm-update', '2026-04-01', null);
    expect(await service.getWatermarkByJobName('wm-update')).toEqual({ jobName: 'wm-update', watermark: '2026-04-01', lastCronRun: null, persisted: true, resync: null });
  });

  it('reads all watermarks in one query on the partition', async () => {
    await service.updateWatermarkByJobName('wm-all-a', '1', new Date('2026-01-01T00:00:00Z'));
    await service.updateWatermarkByJobName('wm-all-b', null, null);
    const all = await service.getAllWatermarks();
    expect(all.get('wm-all-a')).toEqual({ jobName: 'wm-all-a', watermark: '1', lastCronRun: new Date('2026-01-01T00:00:00Z'), persisted: true, resync: null });
    expect(all.get('wm-all-b')).toEqual({ jobName: 'wm-all-b', watermark: null, lastCronRun: null, persisted: true, resync: null });
    expect(all.has('wm-missing')).toBe(false);
    const rows = await (await storage.table(WATERMARK_TABLE)).queryPartition(WATERMARK_PARTITION);
    expect([...all.keys()]).toEqual(rows.map((r) => r.rowKey));
  });

  it('resets: clears Watermark but keeps LastCronRun, or sets it', async () => {
    const ran = new Date('2026-02-02T02:02:02.000Z');
    await service.updateWatermarkByJobName('wm-reset', '2026-02-02', ran);
    await service.resetWatermark('wm-reset');
    const token = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z~[0-9a-f]{6}$/);
    const cleared = await service.getWatermarkByJobName('wm-reset');
    expect(cleared).toEqual({ jobName: 'wm-reset', watermark: null, lastCronRun: ran, persisted: true, resync: token });
    await service.resetWatermark('wm-reset', '2025-12-31');
    const set = await service.getWatermarkByJobName('wm-reset');
    expect(set).toEqual({ jobName: 'wm-reset', watermark: '2025-12-31', lastCronRun: ran, persisted: true, resync: token });
    // Every reset a new token: what it sends again gets new message ids.
    expect(set.resync).not.toBe(cleared.resync);
    await service.resetWatermark('wm-reset-new', '42');
    expect(await service.getWatermarkByJobName('wm-reset-new')).toEqual({ jobName: 'wm-reset-new', watermark: '42', lastCronRun: null, persisted: true, resync: token });
    // A run's write keeps the token it read; run state written meanwhile keeps it too.
    await (await RunStateService.open(storage)).updateRunState('wm-reset', { failures: 1 });
    expect((await service.getWatermarkByJobName('wm-reset')).resync).toBe(set.resync);
    await service.updateWatermarkByJobName('wm-reset', '2026-01-01', ran, set.resync);
    expect((await service.getWatermarkByJobName('wm-reset')).resync).toBe(set.resync);
  });

  it('reads a LastCronRun written as a plain string (hand-edited row)', async () => {
    await (await storage.table(WATERMARK_TABLE)).upsert({ partitionKey: WATERMARK_PARTITION, rowKey: 'wm-hand', properties: { Watermark: '7', LastCronRun: '2026-03-03T03:03:03Z' } });
    expect(await service.getWatermarkByJobName('wm-hand')).toEqual({ jobName: 'wm-hand', watermark: '7', lastCronRun: new Date('2026-03-03T03:03:03Z'), persisted: true, resync: null });
  });

  it('rejects job names that cannot be row keys, naming the job', async () => {
    await expect(service.getWatermarkByJobName('a/b')).rejects.toThrow(`job "a/b" cannot be a table key: contains '/'`);
    await expect(service.updateWatermarkByJobName('x?y', '1', null)).rejects.toThrow(`job "x?y" cannot be a table key: contains '?'`);
    await expect(service.resetWatermark('')).rejects.toThrow('job "" cannot be a table key: is empty');
  });
  it('keeps run state beside the watermark: its writes keep the watermark columns, a watermark write clears it', async () => {
    const runStates = await RunStateService.open(storage);
    const ran = new Date('2026-01-02T03:04:05.000Z');
    await service.updateWatermarkByJobName('wm-state', '2026-01-01', ran, 'tok');
    const retryAt = new Date('2026-01-03T00:00:00.000Z');
    await runStates.updateRunState('wm-state', { failures: 2, retryAt });
    await runStates.updateRunState('wm-state', { running: { startedAt: ran, trigger: 'manual', heartbeatAt: ran } });
    expect(await service.getWatermarkByJobName('wm-state')).toEqual({ jobName: 'wm-state', watermark: '2026-01-01', lastCronRun: ran, persisted: true, resync: 'tok' });
    expect(await runStates.getRunState('wm-state')).toEqual({ resume: null, failures: 2, retryAt, running: { startedAt: ran, trigger: 'manual', heartbeatAt: ran } });
    expect((await runStates.getAllRunStates()).get('wm-state')).toMatchObject({ failures: 2 });
    await service.updateWatermarkByJobName('wm-state', '2026-01-02', ran, 'tok');
    expect(await runStates.getRunState('wm-state')).toEqual({ resume: null, failures: 0, retryAt: null, running: null });
  });
});
