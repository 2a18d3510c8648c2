import { ConnectorRegistry } from '../../../connectors/base/registry';
import type { TargetConnector } from '../../../connectors/base/target-connector';
import { applyOneByOne, type SingleTarget } from '../../../connectors/base/apply-one-by-one';
import { singleTarget } from '../../support/single-target';
import { sqlConnectorFactories, sqliteConnectorFactory } from '../../../connectors/sql';
import type { ReceivedMessage } from '../../../src/bus/message-bus';
import { TransientError } from '../../../src/platform/errors';
import { busSettler } from '../../../src/process/bus-settler';
import type { MessageSettler } from '../../../src/process/message-settler';
import { FakeClock } from '../../support/fake-clock';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/**
 * The spec's backoff, `DeliveryCount² · 1 s`, as scheduled copies: a failed attempt n is completed
 * after a copy for attempt n + 1 is scheduled (n + 1)² s later (or at the target's Retry-After when
 * that is later); attempt 10 is dead-lettered as MaxDeliveryCountExceeded. Nothing sleeps in a
 * processing slot; the lock is renewed every 30 s while a batch works.
 */
describe('retries as scheduled copies', () => {
  let f: SyncFixture;
  const clock = new FakeClock('2026-03-01T00:00:00Z');
  /** What the target does with the next upserts. */
  let plan: { fail: number; retryAfterMs?: number; holdMs?: number } = { fail: 0 };

  function scripted(inner: TargetConnector & SingleTarget): TargetConnector {
    const target: TargetConnector & SingleTarget = {
      ...inner,
      upsert: async (...args) => {
        if (plan.holdMs) await clock.sleep(plan.holdMs);
        if (plan.fail > 0) {
          plan.fail--;
          throw new TransientError('HTTP 503 Service Unavailable', { retryAfterMs: plan.retryAfterMs });
        }
        return inner.upsert(...args);
      },
      delete: (...args) => inner.delete(...args),
      invokeAction: (...args) => inner.invokeAction(...args),
      getTargetVersion: (...args) => inner.getTargetVersion(...args),
      applyBatch: (batch) => applyOneByOne(target, batch),
      close: () => inner.close(),
    };
    return target;
  }

  beforeAll(async () => {
    const registry = new ConnectorRegistry([
      { ...sqliteConnectorFactory, createTarget: (ctx) => scripted(singleTarget(sqliteConnectorFactory.createTarget!(ctx))) },
      ...sqlConnectorFactories.filter((factory) => factory !== sqliteConnectorFactory),
    ]);
    f = await createSyncFixture({ clock, registry });
    await f.runtime.init.ensureInitialized();
  });
  afterAll(async () => {
    await f.close();
  });

  let seq = 0;
  async function detectOne(): Promise<string> {
    const id = `A-${++seq}`;
    f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)').run(id, 'Acme', 'x', `2026-01-01T00:00:${String(seq).padStart(2, '0')}.000Z`);
    await f.runtime.detection.runJob(f.runtime.init.getJob('crm-accounts'));
    return id;
  }

  async function receiveOne(): Promise<ReceivedMessage | undefined> {
    const [message] = await f.runtime.bus.receive(f.settings.queues.work.high, { maxMessages: 1 });
    return message;
  }

  it.each([
    [1, 4_000],
    [2, 9_000],
    [9, 100_000],
  ])('a failed attempt %p is retried by a copy scheduled %p ms later, the original completed', async (attempt, wait) => {
    await f.drain();
    const id = await detectOne();
    let message = (await receiveOne())!;
    // Attempts before `attempt`, each failing, each leaving its copy.
    for (let a = 1; a <= attempt; a++) {
      plan = { fail: 1 };
      const result = await f.runtime.processor.execute(message, busSettler(f.runtime.bus, message), f.settings.queues.work.high);
      expect(result).toMatchObject({ outcome: 'Failed', disposition: 'retried', error: 'HTTP 503 Service Unavailable' });
      const expectedWait = (a + 1) * (a + 1) * 1000;
      expect(result.retryAt!.getTime() - clock.now().getTime()).toBe(expectedWait);
      expect(await receiveOne()).toBeUndefined(); // the copy is not visible yet, the original is gone
      const [scheduled] = await f.runtime.bus.peek(f.settings.queues.work.high);
      expect(scheduled.applicationProperties).toMatchObject({ SourceKey: id, Attempt: a + 1, ErrorType: 'TransientError' });
      if (a === attempt) expect(expectedWait).toBe(wait);
      await clock.advance(expectedWait - 1);
      expect(await receiveOne()).toBeUndefined();
      await clock.advance(1);
      message = (await receiveOne())!;
      expect(message).toBeDefined();
    }
    expect(clock.sleeps).toEqual([]);
    plan = { fail: 0 };
    expect(await f.runtime.processor.execute(message, busSettler(f.runtime.bus, message), f.settings.queues.work.high)).toMatchObject({ outcome: 'Success' });
    expect(f.erp.prepare('SELECT count(*) AS n FROM customers WHERE crm_id = ?').get(id)).toEqual({ n: 1 });
  });

  it('dead-letters attempt 10 as MaxDeliveryCountExceeded', async () => {
    await f.drain();
    const id = await detectOne();
    const first = (await receiveOne())!;
    // A copy for attempt 10, as nine failed attempts would have left it.
    await f.runtime.bus.complete(first);
    await f.runtime.bus.send(f.settings.queues.work.high, [{ body: first.body, messageId: 'attempt-10', applicationProperties: { ...first.applicationProperties, Attempt: 10 } }]);
    const tenth = (await receiveOne())!;
    plan = { fail: 1 };
    const result = await f.runtime.processor.execute(tenth, busSettler(f.runtime.bus, tenth), f.settings.queues.work.high);
    expect(result).toMatchObject({ outcome: 'Failed', disposition: 'deadLettered' });
    const [dead] = await f.runtime.bus.peek(f.settings.queues.work.high, { subQueue: 'deadLetter' });
    expect(dead).toMatchObject({ deadLetterReason: 'MaxDeliveryCountExceeded' });
    expect(dead.deadLetterErrorDescription).toBe('failed 10 attempts; the last: HTTP 503 Service Unavailable');
    expect(dead.applicationProperties).toMatchObject({ SourceKey: id, ErrorMessage: 'HTTP 503 Service Unavailable' });
    await f.runtime.bus.receive(f.settings.queues.work.high, { subQueue: 'deadLetter', maxMessages: 10 }).then((ms) => Promise.all(ms.map((m) => f.runtime.bus.complete(m))));
  });

  it('schedules the copy at the target’s Retry-After when that is later than the backoff', async () => {
    await f.drain();
    await detectOne();
    const message = (await receiveOne())!;
    plan = { fail: 1, retryAfterMs: 20_000 };
    const result = await f.runtime.processor.execute(message, busSettler(f.runtime.bus, message), f.settings.queues.work.high);
    expect(result.retryAt!.getTime() - clock.now().getTime()).toBe(20_000);
    expect(clock.sleeps).toEqual([]);
    await clock.advance(20_000);
    plan = { fail: 0 };
    expect((await f.drain()).map((r) => r.outcome)).toContain('Success');
  });

  it('renews every message lock of a batch every 30 s while the target works', async () => {
    await f.drain();
    await detectOne();
    await detectOne();
    const messages = await f.runtime.bus.receive(f.settings.queues.work.high, { maxMessages: 10 });
    expect(messages).toHaveLength(2);
    const renewals = new Map<string, number>();
    const items = messages.map((message) => {
      const inner = busSettler(f.runtime.bus, message);
      const settler: MessageSettler = { ...inner, renewLock: async () => { renewals.set(message.messageId, (renewals.get(message.messageId) ?? 0) + 1); await inner.renewLock(); } };
      return { message, settler };
    });
    plan = { fail: 0, holdMs: 100_000 };
    const done = f.runtime.processor.executeBatch(items, f.settings.queues.work.high);
    await clock.advance(100_000);
    await clock.advance(100_000);
    const results = await done;
    expect(results.map((r) => r.outcome)).toEqual(['Success', 'Success']);
    // The two upserts hold 100 s each, one after the other or together: at least three renewals each.
    for (const m of messages) expect(renewals.get(m.messageId)).toBeGreaterThanOrEqual(3);
    const after = new Map(renewals);
    await clock.advance(120_000);
    expect(renewals).toEqual(after); // renewal stopped with the batch
    plan = { fail: 0 };
  });
});
