import type { ReceivedMessage } from '../../../src/bus/message-bus';
import { busSettler } from '../../../src/process/bus-settler';
import type { MessageSettler } from '../../../src/process/message-settler';
import { FakeClock } from '../../support/fake-clock';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/** Backoff `DeliveryCount² · 1000 ms` on redelivery, with the lock renewed every 30 s meanwhile. */
describe('redelivery backoff and lock renewal', () => {
  let f: SyncFixture;
  const clock = new FakeClock('2026-03-01T00:00:00Z');
  beforeAll(async () => {
    f = await createSyncFixture({ clock });
    await f.runtime.init.ensureInitialized();
  });
  afterAll(async () => {
    await f.close();
  });

  async function deliveredTimes(n: number): Promise<ReceivedMessage> {
    const queue = f.settings.queues.work.high;
    for (let i = 1; i < n; i++) {
      const [m] = await f.runtime.bus.receive(queue, { maxMessages: 1 });
      if (!m) throw new Error(`no message at delivery ${i}: ${JSON.stringify(await f.runtime.bus.counts(queue))}`);
      await f.runtime.bus.abandon(m);
    }
    const [message] = await f.runtime.bus.receive(queue, { maxMessages: 1 });
    expect(message.deliveryCount).toBe(n);
    return message;
  }

  function countingSettler(message: ReceivedMessage): MessageSettler & { renewals: number } {
    const inner = busSettler(f.runtime.bus, message);
    const settler = { ...inner, renewals: 0, renewLock: async () => { settler.renewals++; await inner.renewLock(); } };
    return settler;
  }

  it.each([
    [2, 4_000, 0],
    [3, 9_000, 0],
    [10, 100_000, 3],
  ])('delivery %p waits %p ms and renews the lock %p times', async (delivery, wait, renewals) => {
    await f.drain(); // response messages of the previous case
    const id = `A-${delivery}`;
    f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)').run(id, 'Acme', 'x', `2026-01-01T00:00:${String(delivery).padStart(2, "0")}.000Z`);
    await f.runtime.detection.runJob(f.runtime.init.getJob('crm-accounts'));
    const message = await deliveredTimes(delivery);
    const settler = countingSettler(message);
    const sleepsBefore = clock.sleeps.length;
    const done = f.runtime.processor.execute(message, settler);
    await clock.advance(wait - 1);
    expect(f.erp.prepare('SELECT count(*) AS n FROM customers WHERE crm_id = ?').get(id)).toEqual({ n: 0 });
    await clock.advance(1);
    const result = await done;
    expect(result.outcome).toBe('Success');
    expect(clock.sleeps.slice(sleepsBefore)).toEqual([wait]);
    expect(settler.renewals).toBe(renewals);
    expect(f.erp.prepare('SELECT count(*) AS n FROM customers WHERE crm_id = ?').get(id)).toEqual({ n: 1 });
    // Renewal stopped with processing: no timer left behind.
    await clock.advance(120_000);
    expect(settler.renewals).toBe(renewals);
  });
});
