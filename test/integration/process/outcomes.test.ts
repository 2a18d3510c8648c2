import type { SyncFixture } from '../../support/sync-fixture';
import { createSyncFixture } from '../../support/sync-fixture';

/**
 * Each processing outcome on the local bus and real SQLite targets; afterwards the message is
 * found in exactly one place: applied to the target, sbqignored, sbqtransitive*, or the
 * dead-letter subqueue with ErrorMessage set.
 */
describe('processing outcomes', () => {
  let f: SyncFixture;
  beforeEach(async () => {
    f = await createSyncFixture();
  });
  afterEach(async () => {
    await f.close();
  });

  async function places() {
    const { bus, settings } = f.runtime;
    const q = settings.queues;
    const counts = async (name: string) => bus.counts(name);
    return {
      high: await counts(q.work.high),
      normal: await counts(q.work.normal),
      low: await counts(q.work.low),
      ignored: (await counts(q.ignored)).active,
      transitiveNormal: (await counts(q.transitive.normal)).active,
      transitiveHigh: (await counts(q.transitive.high)).active,
    };
  }

  it('applies a new account and writes the generated customer number back to the CRM', async () => {
    f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)').run('A-1', 'Acme', '  Berlin ', '2026-01-01T10:00:00.000Z');
    const runs = await f.runtime.detection.execute();
    expect(runs.map((r) => [r.jobName, r.outcome, r.detected])).toEqual([
      ['crm-accounts', 'Succeeded', 1],
      ['crm-contacts', 'Succeeded', 0],
      ['crm-deleted-accounts', 'Succeeded', 0],
    ]);
    const results = await f.drain();
    expect(results.map((r) => [r.jobName, r.outcome, r.error])).toEqual([
      ['crm-accounts', 'Success', undefined],
      ['erp-numbers', 'Success', undefined],
    ]);
    const customer = f.erp.prepare('SELECT customer_no, name, city FROM customers WHERE crm_id = ?').get('A-1') as { customer_no: number; name: string; city: string };
    expect(customer).toMatchObject({ name: 'ACME', city: 'Berlin' });
    expect(f.crm.prepare('SELECT erp_number FROM accounts WHERE id = ?').get('A-1')).toEqual({ erp_number: String(customer.customer_no) });
  });

  it('sends a change older than the target record to sbqignored', async () => {
    f.erp.prepare('INSERT INTO customers (crm_id, name, modified_at) VALUES (?, ?, ?)').run('A-2', 'NEWER', '2026-06-01T00:00:00.000Z');
    f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)').run('A-2', 'older', 'x', '2026-01-01T00:00:00.000Z');
    await f.runtime.detection.execute();
    const results = await f.drain();
    expect(results.map((r) => r.outcome)).toEqual(['Ignored']);
    expect(f.erp.prepare('SELECT name FROM customers WHERE crm_id = ?').get('A-2')).toEqual({ name: 'NEWER' });
    expect(await places()).toMatchObject({ ignored: 1, transitiveHigh: 0, high: { active: 0, deadLetter: 0 } });
  });

  it('parks a contact whose account is missing in the target in sbqtransitivenormal', async () => {
    f.crm.prepare('INSERT INTO contacts VALUES (?, ?, ?, ?, ?)').run('C-1', 'A-missing', 'Ada', 'Lovelace', '2026-01-01T00:00:00.000Z');
    await f.runtime.detection.execute();
    const results = await f.drain();
    expect(results.map((r) => [r.outcome, r.disposition])).toEqual([['Transitive', 'transitive']]);
    expect(f.erp.prepare('SELECT count(*) AS n FROM contacts').get()).toEqual({ n: 0 });
    expect(await places()).toMatchObject({ transitiveNormal: 1, normal: { active: 0, deadLetter: 0 } });
    const [parked] = await f.runtime.bus.peek(f.settings.queues.transitive.normal);
    expect(parked.applicationProperties).toMatchObject({ JobName: 'crm-contacts', SourceKey: 'C-1', ErrorType: 'TransitiveError' });
    expect(String(parked.applicationProperties.ErrorMessage)).toMatch(/FOREIGN KEY/i);
  });

  it('dead-letters an invalid row at once with ErrorMessage set', async () => {
    f.crm.prepare('INSERT INTO accounts VALUES (?, NULL, ?, ?, NULL)').run('A-3', 'x', '2026-01-01T00:00:00.000Z');
    await f.runtime.detection.execute();
    const results = await f.drain();
    expect(results.map((r) => [r.outcome, r.disposition])).toEqual([['Failed', 'deadLettered']]);
    expect(await places()).toMatchObject({ high: { active: 0, deadLetter: 1 }, ignored: 0 });
    const [dead] = await f.runtime.bus.peek(f.settings.queues.work.high, { subQueue: 'deadLetter' });
    expect(dead.deadLetterReason).toBe('PermanentError');
    expect(dead.applicationProperties).toMatchObject({ ErrorType: 'PermanentError' });
    expect(String(dead.applicationProperties.ErrorMessage)).toMatch(/NOT NULL/i);
  });

  it('deletes the target record for a tombstone', async () => {
    f.erp.prepare('INSERT INTO customers (crm_id, name) VALUES (?, ?)').run('A-4', 'GONE');
    f.crm.prepare('INSERT INTO deleted_accounts VALUES (?, ?)').run('A-4', '2026-01-02T00:00:00.000Z');
    await f.runtime.detection.execute();
    expect((await f.drain()).map((r) => [r.jobName, r.outcome])).toEqual([['crm-deleted-accounts', 'Success']]);
    expect(f.erp.prepare('SELECT count(*) AS n FROM customers').get()).toEqual({ n: 0 });
  });

  it('dead-letters a message of an unknown job and a malformed body at once', async () => {
    const queue = f.settings.queues.work.normal;
    await f.runtime.bus.send(queue, [
      { body: '{"not":"a message"}', messageId: 'bad-1' },
      {
        body: JSON.stringify({
          version: 1, jobName: 'no-such-job', action: 'NewUpdate', sourceKey: 'k', targetKey: {}, changeTracker: '',
          fields: {}, correlationId: 'c', detectedAt: '2026-01-01T00:00:00Z',
        }),
        messageId: 'bad-2',
      },
    ]);
    const results = await f.drain();
    expect(results.map((r) => r.disposition)).toEqual(['deadLettered', 'deadLettered']);
    const dead = await f.runtime.bus.peek(queue, { subQueue: 'deadLetter' });
    expect(dead.map((m) => m.applicationProperties.ErrorMessage)).toEqual([
      expect.stringMatching(/^malformed message body: version: expected 1, got undefined; jobName/),
      'unknown job "no-such-job"',
    ]);
  });

  it('lets a message whose target table is missing wait for the fix: a copy at the next probe, its attempt kept, the target paused', async () => {
    f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)').run('A-5', 'Acme', 'x', '2026-01-01T00:00:00.000Z');
    await f.runtime.detection.execute();
    f.erp.exec('DROP TABLE contacts; DROP TABLE customers;');
    const [message] = await f.runtime.bus.receive(f.settings.queues.work.high, { maxMessages: 1 });
    const { busSettler } = await import('../../../src/process/bus-settler');
    const before = Date.now();
    const result = await f.runtime.processor.execute(message, busSettler(f.runtime.bus, message));
    expect(result.disposition).toBe('deferred');
    expect(await f.runtime.bus.receive(f.settings.queues.work.high, { maxMessages: 1 })).toEqual([]);
    const [copy] = await f.runtime.bus.peek(f.settings.queues.work.high);
    expect(copy.applicationProperties).toMatchObject({ SourceKey: 'A-5', Attempt: 1 });
    expect(copy.scheduledEnqueueTime!.getTime() - before).toBeGreaterThanOrEqual(30_000);
    expect(copy.scheduledEnqueueTime!.getTime() - before).toBeLessThan(32_000);
    expect(f.runtime.targetHealth.snapshot()).toMatchObject([{ connection: 'erp', error: expect.stringMatching(/the table does not exist \(SQLITE_ERROR\): no such table: customers$/) }]);
  });
});
