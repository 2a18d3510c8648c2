import { ConfigError } from '../../../src/platform/errors';
import type { ReceivedMessage } from '../../../src/bus/message-bus';
import { busSettler } from '../../../src/process/bus-settler';
import type { ProcessResult } from '../../../src/process/process-queue-message-service';
import { FakeClock } from '../../support/fake-clock';
import { FaultInjection, faultInjectingRegistry } from '../../support/fault-injection';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/**
 * A long outage: waiting messages are deferred for as long as the outage has lasted (at most
 * 5 min), not to every next probe, so a backlog does not cycle through the queue every 30 s; and
 * after it, a record whose parent may still be among the deferred messages waits for them
 * instead of using up its `transitiveRetries` (2 here: 4 + 9 s).
 */
describe('a long target outage', () => {
  let f: SyncFixture;
  const clock = new FakeClock('2026-05-01T00:00:00Z');
  const faults = new FaultInjection();
  let broken = false;
  beforeAll(async () => {
    f = await createSyncFixture({ clock, registry: faultInjectingRegistry(faults) }, (config) => {
      const contacts = config.jobs.find((j) => j.name === 'crm-contacts') as Record<string, unknown>;
      contacts.transitiveRetries = 2;
    });
    await f.runtime.init.ensureInitialized();
    faults.plan = {
      beforeTargetCall: () => {
        if (broken) throw new ConfigError('sqlite connection "erp": the table does not exist');
      },
    };
  });
  afterAll(async () => {
    faults.plan = {};
    await f.close();
  });

  async function drain(queue: string): Promise<ProcessResult[]> {
    const results: ProcessResult[] = [];
    for (;;) {
      const messages: ReceivedMessage[] = await f.runtime.bus.receive(queue, { maxMessages: 10 });
      if (messages.length === 0) return results;
      results.push(...(await f.runtime.processor.executeBatch(messages.map((message) => ({ message, settler: busSettler(f.runtime.bus, message) })), queue)));
    }
  }

  it('defers a backlog for longer as the outage goes on; afterwards a missing parent waits for the deferred ones', async () => {
    const { high, normal } = f.settings.queues.work;
    const account = f.crm.prepare('INSERT INTO accounts (id, name, city, modified_at) VALUES (?, ?, ?, ?)');
    for (let i = 1; i <= 20; i++) account.run(`L-${i}`, `Account ${i}`, 'Chur', `2026-01-03T00:00:00.${String(i).padStart(3, '0')}Z`);
    await f.runtime.detection.runJob(f.runtime.init.getJob('crm-accounts'));
    broken = true;
    let deferrals = 0;
    // 20 minutes of outage, the processors looking every 30 s.
    for (let step = 0; step < 40; step++) {
      deferrals += (await drain(high)).filter((r) => r.disposition === 'deferred').length;
      await clock.advance(30_000);
    }
    expect(f.runtime.targetHealth.snapshot()).toMatchObject([{ connection: 'erp' }]);
    // Deferred to every probe, each account would have come back ~38 times; with the deferral
    // growing with the outage's age up to 5 min: ~3 times to reach the cap, then every 5 min.
    expect(deferrals).toBeGreaterThan(0);
    expect(deferrals / 20).toBeLessThanOrEqual(10);

    // The target is back. Contacts of those accounts are detected now, while the accounts still
    // wait in their queue (up to 5 min): the first contact is the probe that ends the outage.
    broken = false;
    const contact = f.crm.prepare('INSERT INTO contacts VALUES (?, ?, ?, ?, ?)');
    for (let i = 1; i <= 40; i++) contact.run(`M-${i}`, `L-${(i % 20) + 1}`, 'Alan', 'Turing', `2026-01-03T00:00:00.${String(i).padStart(3, '0')}Z`);
    await f.runtime.detection.runJob(f.runtime.init.getJob('crm-contacts'));
    const first = await drain(normal);
    expect(f.runtime.targetHealth.snapshot()).toEqual([]);
    expect(first.filter((r) => r.disposition === 'deferred').length).toBeGreaterThan(0);
    expect(first.filter((r) => r.disposition === 'transitive')).toEqual([]);
    for (let step = 0; step < 14; step++) {
      await clock.advance(30_000);
      await drain(high);
      await drain(normal);
    }
    expect(f.erp.prepare("SELECT count(*) AS n FROM customers WHERE crm_id LIKE 'L-%'").get()).toEqual({ n: 20 });
    expect(f.erp.prepare("SELECT count(*) AS n FROM contacts WHERE crm_id LIKE 'M-%'").get()).toEqual({ n: 40 });
    expect(await f.runtime.bus.peek(f.settings.queues.transitive.normal, { maxMessages: 100 })).toEqual([]);
    expect(await f.runtime.bus.peek(normal, { subQueue: 'deadLetter' })).toEqual([]);
    expect(await f.runtime.bus.peek(high, { subQueue: 'deadLetter' })).toEqual([]);
  });
});
