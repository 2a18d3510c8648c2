import { resubmission } from '../../../src/mover/resubmission';
import { busSettler } from '../../../src/process/bus-settler';
import type { ProcessResult } from '../../../src/process/process-queue-message-service';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/**
 * Found by the convergence and crash suites (test/e2e/convergence, test/e2e/crash): an upsert
 * applied after a newer delete of its record must not re-create it, and a change parked a second
 * time (resubmitted, its dependency still missing) must be parked again, not dropped.
 */
describe('delete/upsert order and repeated parking', () => {
  let f: SyncFixture;
  beforeAll(async () => {
    f = await createSyncFixture();
    await f.runtime.init.ensureInitialized();
  });
  afterAll(async () => {
    await f.close();
  });

  async function processNext(queue: string): Promise<ProcessResult> {
    const [message] = await f.runtime.bus.receive(queue, { maxMessages: 1 });
    if (!message) throw new Error(`${queue} is empty`);
    return f.runtime.processor.execute(message, busSettler(f.runtime.bus, message), queue);
  }

  it('ignores an upsert processed after a newer delete of the same record', async () => {
    const { queues } = f.settings;
    f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)').run('A-ORDER', 'Acme', 'Berlin', '2026-05-01T10:00:00.000Z');
    await f.runtime.detection.runJob(f.runtime.init.getJob('crm-accounts'));
    f.crm.prepare('DELETE FROM accounts WHERE id = ?').run('A-ORDER');
    f.crm.prepare('INSERT INTO deleted_accounts VALUES (?, ?)').run('A-ORDER', '2026-05-01T10:00:05.000Z');
    await f.runtime.detection.runJob(f.runtime.init.getJob('crm-deleted-accounts'));
    // The delete (sbqlow) is processed before the older upsert (sbqhigh).
    expect(await processNext(queues.work.low)).toMatchObject({ outcome: 'Success' });
    expect(await processNext(queues.work.high)).toMatchObject({ outcome: 'Ignored', disposition: 'ignored' });
    expect(f.erp.prepare('SELECT count(*) AS n FROM customers WHERE crm_id = ?').get('A-ORDER')).toEqual({ n: 0 });
    const [ignored] = await f.runtime.bus.peek(queues.ignored);
    expect(ignored.applicationProperties).toMatchObject({ SourceKey: 'A-ORDER', ChangeTracker: '2026-05-01T10:00:00.0000000Z' });
  });

  it('parks a change again when it is resubmitted and its dependency is still missing', async () => {
    const { queues } = f.settings;
    f.crm.prepare('INSERT INTO contacts VALUES (?, ?, ?, ?, ?)').run('C-ORPHAN', 'A-MISSING', 'Ada', 'Lovelace', '2026-05-01T11:00:00.000Z');
    await f.runtime.detection.runJob(f.runtime.init.getJob('crm-contacts'));
    expect(await processNext(queues.work.normal)).toMatchObject({ disposition: 'transitive' });
    // The dead-letter mover's resubmission: receive the parked copy, send it back, complete it.
    const [parked] = await f.runtime.bus.receive(queues.transitive.normal, { maxMessages: 1 });
    await f.runtime.bus.send(queues.work.normal, [resubmission(parked, { queue: queues.transitive.normal }, new Date())]);
    await f.runtime.bus.complete(parked);
    expect(await processNext(queues.work.normal)).toMatchObject({ disposition: 'transitive' });
    const again = await f.runtime.bus.peek(queues.transitive.normal);
    expect(again.map((m) => m.applicationProperties.SourceKey)).toEqual(['C-ORPHAN']);
  });
});
