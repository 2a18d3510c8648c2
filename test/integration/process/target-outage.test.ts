import { ConfigError } from '../../../src/platform/errors';
import type { ReceivedMessage } from '../../../src/bus/message-bus';
import { busSettler } from '../../../src/process/bus-settler';
import type { ProcessResult } from '../../../src/process/process-queue-message-service';
import { FakeClock } from '../../support/fake-clock';
import { FaultInjection, faultInjectingRegistry } from '../../support/fault-injection';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/**
 * A broken target setting must not turn into one dead letter per message: after 5 failed groups
 * the connection is in outage, its messages wait (rescheduled with no attempt counted), one probe
 * goes through every 30 s, and the first success applies everything.
 */
describe('outage mode of a failing target', () => {
  let f: SyncFixture;
  const clock = new FakeClock('2026-05-01T00:00:00Z');
  const faults = new FaultInjection();
  beforeAll(async () => {
    f = await createSyncFixture({ clock, registry: faultInjectingRegistry(faults) });
    await f.runtime.init.ensureInitialized();
  });
  afterAll(async () => {
    await f.close();
  });

  async function processBatches(size: number): Promise<ProcessResult[]> {
    const queue = f.settings.queues.work.normal;
    const results: ProcessResult[] = [];
    for (;;) {
      const messages: ReceivedMessage[] = await f.runtime.bus.receive(queue, { maxMessages: size });
      if (messages.length === 0) return results;
      results.push(...(await f.runtime.processor.executeBatch(messages.map((message) => ({ message, settler: busSettler(f.runtime.bus, message) })), queue)));
    }
  }

  it('pauses a target after 5 failed groups, probes every 30 s, and applies everything once it answers', async () => {
    f.erp.prepare("INSERT INTO customers (crm_id, name) VALUES ('A-1', 'ACME')").run();
    const insert = f.crm.prepare('INSERT INTO contacts VALUES (?, ?, ?, ?, ?)');
    for (let i = 1; i <= 100; i++) insert.run(`C-${i}`, 'A-1', 'Ada', 'Lovelace', `2026-01-01T00:00:00.${String(i).padStart(3, '0')}Z`);
    await f.runtime.detection.runJob(f.runtime.init.getJob('crm-contacts'));
    let broken = true;
    faults.plan = {
      beforeTargetCall: () => {
        if (broken) throw new ConfigError('sqlite connection "erp": the table does not exist');
      },
    };
    const first = await processBatches(10);
    const by = (rs: ProcessResult[], d: string) => rs.filter((r) => r.disposition === d).length;
    expect({ retried: by(first, 'retried'), deferred: by(first, 'deferred') }).toEqual({ retried: 50, deferred: 50 });
    expect(f.runtime.targetHealth.snapshot()).toMatchObject([{ connection: 'erp', failures: 5 }]);
    // The deferred ones keep their attempt (1); the failed ones are at attempt 2.
    const waiting = await f.runtime.bus.peek(f.settings.queues.work.normal, { maxMessages: 200 });
    expect(waiting.map((m) => m.applicationProperties.Attempt).sort()).toEqual([...Array(50).fill(1), ...Array(50).fill(2)]);

    // A probe 30 s later still fails: one call reaches the target, everything else waits again.
    await clock.advance(30_000);
    const callsBefore = faults.calls.length;
    const second = await processBatches(10);
    expect(faults.calls.length - callsBefore).toBe(1);
    expect(by(second, 'deferred')).toBe(99);
    expect(await f.runtime.bus.peek(f.settings.queues.work.normal, { subQueue: 'deadLetter' })).toEqual([]);

    // Fixed: the next probe succeeds and ends the outage; every contact is applied, none dead-lettered.
    broken = false;
    await clock.advance(30_000);
    const third = await processBatches(10);
    expect(f.runtime.targetHealth.snapshot()).toEqual([]);
    await clock.advance(30_000);
    await processBatches(10);
    expect(by(third, 'completed')).toBeGreaterThan(0);
    expect(f.erp.prepare('SELECT count(*) AS n FROM contacts').get()).toEqual({ n: 100 });
    expect(await f.runtime.bus.peek(f.settings.queues.work.normal, { subQueue: 'deadLetter' })).toEqual([]);
    faults.plan = {};
  });
});
