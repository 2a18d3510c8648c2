import { JobActionType } from '../../../src/model/job';
import type { QueueMessage } from '../../../src/model/queue-message';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/**
 * A reset sends everything again, and the target gets it: inside the bus's duplicate detection
 * window (10 minutes) too. Message ids are derived from the change, so without the reset's own
 * token in them the resend would be dropped as duplicates of the first sync.
 */
describe('resync inside the duplicate detection window', () => {
  let f: SyncFixture;

  beforeAll(async () => {
    f = await createSyncFixture();
    await f.runtime.init.ensureInitialized();
    const insert = f.crm.prepare('INSERT INTO accounts (id, name, city, modified_at) VALUES (?, ?, ?, ?)');
    for (let i = 1; i <= 25; i++) insert.run(`A-${i}`, `Account ${i}`, 'Bern', `2026-01-01T10:00:${String(i).padStart(2, '0')}Z`);
  });

  afterAll(async () => {
    await f?.close();
  });

  const customers = () => (f.erp.prepare('SELECT count(*) AS n FROM customers').get() as { n: number }).n;
  const run = () => f.runtime.detection.runJob(f.runtime.init.getJob('crm-accounts'));

  it('a watermark reset right after a sync sends again and the target gets every record', async () => {
    expect((await run()).sentByQueue).toEqual({ sbqhigh: 25 });
    await f.drain();
    expect(customers()).toBe(25);

    f.erp.exec('DELETE FROM customers');
    // Nothing changed and no reset: nothing is read again.
    expect((await run()).detected).toBe(0);

    await f.runtime.watermarks.resetWatermark('crm-accounts');
    const resent = await run();
    expect(resent.detected).toBe(25);
    expect(resent.sentByQueue).toEqual({ sbqhigh: 25 });
    const results = await f.drain();
    expect(results.filter((r) => r.outcome === 'Success').length).toBeGreaterThanOrEqual(25);
    expect(customers()).toBe(25);
  });

  it('a second reset within the window sends again too, and the token survives the runs in between', async () => {
    const before = (await f.runtime.watermarks.getWatermarkByJobName('crm-accounts')).resync;
    expect(before).not.toBeNull();
    f.erp.exec('DELETE FROM customers');
    await f.runtime.watermarks.resetWatermark('crm-accounts', '2026-01-01T10:00:10Z');
    const after = (await f.runtime.watermarks.getWatermarkByJobName('crm-accounts')).resync;
    expect(after).not.toBe(before);
    expect((await run()).sentByQueue).toEqual({ sbqhigh: 15 });
    await f.drain();
    expect(customers()).toBe(15);
    expect((await f.runtime.watermarks.getWatermarkByJobName('crm-accounts')).resync).toBe(after);
  });

  it('a retried send of the same change within a run is still dropped by duplicate detection', async () => {
    const job = f.runtime.init.getJob('crm-accounts');
    const sender = f.runtime.sender;
    const { resync } = await f.runtime.watermarks.getWatermarkByJobName('crm-accounts');
    const message: QueueMessage = { version: 1, jobName: job.name, action: JobActionType.NewUpdate, sourceKey: 'A-99', targetKey: { crm_id: 'A-99' }, changeTracker: '2026-01-01T11:00:00.0000000Z', fields: { crm_id: 'A-99', name: 'X' }, correlationId: 'c', detectedAt: '2026-01-01T11:00:00Z', ...(resync ? { resync } : {}) };
    await sender.addMessageOrSend({ ...message }, 'high');
    await sender.flushBatch();
    await sender.addMessageOrSend({ ...message }, 'high');
    await sender.flushBatch();
    const results = await f.drain();
    expect(results.filter((r) => r.outcome === 'Success')).toHaveLength(1);
  });
});
