import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/**
 * `skipUnchanged`: after a successful apply the processor stores the hash of the applied fields;
 * a later change whose mapped fields hash the same is a timestamp-only change — it advances the
 * watermark and sends nothing (e.g. the response job's write-back bumping modified_at).
 */
describe('applied hashes and timestamp-only changes', () => {
  let f: SyncFixture;
  beforeAll(async () => {
    f = await createSyncFixture({}, (config) => {
      const job = config.jobs.find((j) => j.name === 'crm-accounts') as Record<string, unknown>;
      job.skipUnchanged = true;
      // As in the demo: the change timestamp itself is not a mapped field.
      const mapping = config.mappings.find((m) => m.name === 'account-to-customer') as { fields: Array<{ target: string }> };
      mapping.fields = mapping.fields.filter((field) => field.target !== 'modified_at');
    });
    await f.runtime.init.ensureInitialized();
  });
  afterAll(async () => {
    await f.close();
  });

  const run = () => f.runtime.detection.runJob(f.runtime.init.getJob('crm-accounts'));

  it('sends a change, then treats a timestamp-only bump as TimeStamp, then sends a real change again', async () => {
    f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)').run('A-1', 'Acme', 'Berlin', '2026-01-01T00:00:00.000Z');
    const first = await run();
    expect(first).toMatchObject({ detected: 1, timeStamps: 0 });
    expect(first.sentByQueue).toEqual({ sbqhigh: 1 });
    await f.drain();
    await f.runtime.appliedHashes.flush();

    // The write-back of the ERP number bumped modified_at: mapped fields unchanged.
    f.crm.prepare('UPDATE accounts SET modified_at = ? WHERE id = ?').run('2026-01-02T00:00:00.000Z', 'A-1');
    const stamp = await run();
    expect(stamp).toMatchObject({ detected: 1, timeStamps: 1, outcome: 'Succeeded' });
    expect(stamp.sentByQueue).toEqual({});
    expect(stamp.watermarkAfter).toBe('2026-01-02T00:00:00.0000000Z');

    f.crm.prepare('UPDATE accounts SET name = ?, modified_at = ? WHERE id = ?').run('Acme Two', '2026-01-03T00:00:00.000Z', 'A-1');
    const changed = await run();
    expect(changed).toMatchObject({ detected: 1, timeStamps: 0 });
    expect(changed.sentByQueue).toEqual({ sbqhigh: 1 });
    await f.drain();
    expect(f.erp.prepare('SELECT name FROM customers WHERE crm_id = ?').get('A-1')).toEqual({ name: 'ACME TWO' });
  });
});
