import type { ReceivedMessage } from '../../../src/bus/message-bus';
import { ConfigError } from '../../../src/platform/errors';
import { busSettler } from '../../../src/process/bus-settler';
import type { ProcessResult } from '../../../src/process/process-queue-message-service';
import { TARGET_RECOVERIES_TABLE } from '../../../src/process/shared-recoveries';
import { createRuntime, type Runtime } from '../../../src/runtime/runtime';
import { silentLogger } from '../../../src/telemetry/logger';
import { FakeClock } from '../../support/fake-clock';
import { FaultInjection, faultInjectingRegistry } from '../../support/fault-injection';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/**
 * Two instances of the app (two runtimes on one bus and one table storage, as two Functions
 * instances on one namespace and account). Instance A sees the target's outage and defers the
 * accounts; instance B never saw it. After the outage B meets contacts whose accounts A deferred:
 * they must wait for those accounts, not use up their transitive retries (2 here) and be parked
 * in `sbqtransitive*`, which nothing reads.
 */
describe('a target outage seen by another instance', () => {
  let f: SyncFixture;
  let b: Runtime;
  const clock = new FakeClock('2026-05-02T00:00:00Z');
  const faults = new FaultInjection();
  let broken = false;
  beforeAll(async () => {
    const registry = faultInjectingRegistry(faults);
    f = await createSyncFixture({ clock, registry }, (config) => {
      const contacts = config.jobs.find((j) => j.name === 'crm-contacts') as Record<string, unknown>;
      contacts.transitiveRetries = 2;
    });
    b = await createRuntime({ settings: f.settings, configDir: f.dir, clock, registry, log: silentLogger, storage: f.runtime.storage, bus: f.runtime.bus });
    await f.runtime.init.ensureInitialized();
    await b.init.ensureInitialized();
    faults.plan = {
      beforeTargetCall: () => {
        if (broken) throw new ConfigError('sqlite connection "erp": the table does not exist');
      },
    };
  });
  afterAll(async () => {
    faults.plan = {};
    await b.close();
    await f.close();
  });

  async function drain(runtime: Runtime, queue: string): Promise<ProcessResult[]> {
    const results: ProcessResult[] = [];
    for (;;) {
      const messages: ReceivedMessage[] = await runtime.bus.receive(queue, { maxMessages: 10 });
      if (messages.length === 0) return results;
      results.push(...(await runtime.processor.executeBatch(messages.map((message) => ({ message, settler: busSettler(runtime.bus, message) })), queue)));
    }
  }

  it('defers a missing parent on B until the messages A deferred are due', async () => {
    const { high, normal } = f.settings.queues.work;
    const account = f.crm.prepare('INSERT INTO accounts (id, name, city, modified_at) VALUES (?, ?, ?, ?)');
    for (let i = 1; i <= 10; i++) account.run(`P-${i}`, `Account ${i}`, 'Thun', `2026-01-04T00:00:00.${String(i).padStart(3, '0')}Z`);
    await f.runtime.detection.runJob(f.runtime.init.getJob('crm-accounts'));
    broken = true;
    // Ten minutes of outage on A: the accounts are deferred for minutes by now.
    for (let step = 0; step < 20; step++) {
      await drain(f.runtime, high);
      await clock.advance(30_000);
    }
    expect(f.runtime.targetHealth.snapshot()).toMatchObject([{ connection: 'erp' }]);
    expect(b.targetHealth.snapshot()).toEqual([]);
    const shared = await f.runtime.storage.table(TARGET_RECOVERIES_TABLE);
    for (let i = 0; i < 100 && (await shared.queryPartition('erp')).length === 0; i++) await new Promise((r) => setTimeout(r, 20));

    broken = false;
    const contact = f.crm.prepare('INSERT INTO contacts VALUES (?, ?, ?, ?, ?)');
    for (let i = 1; i <= 20; i++) contact.run(`Q-${i}`, `P-${(i % 10) + 1}`, 'Grace', 'Hopper', `2026-01-04T00:00:00.${String(i).padStart(3, '0')}Z`);
    await b.detection.runJob(b.init.getJob('crm-contacts'));
    const first = await drain(b, normal);
    expect(first.map((r) => r.disposition)).toEqual(Array(20).fill('deferred'));
    for (let step = 0; step < 14; step++) {
      await clock.advance(30_000);
      await drain(f.runtime, high);
      await drain(b, normal);
    }
    expect(f.erp.prepare("SELECT count(*) AS n FROM customers WHERE crm_id LIKE 'P-%'").get()).toEqual({ n: 10 });
    expect(f.erp.prepare("SELECT count(*) AS n FROM contacts WHERE crm_id LIKE 'Q-%'").get()).toEqual({ n: 20 });
    expect(await f.runtime.bus.peek(f.settings.queues.transitive.normal, { maxMessages: 100 })).toEqual([]);
    expect(await f.runtime.bus.peek(normal, { subQueue: 'deadLetter' })).toEqual([]);
  });
});
