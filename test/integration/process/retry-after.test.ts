import { ConnectorRegistry } from '../../../connectors/base/registry';
import type { TargetConnector } from '../../../connectors/base/target-connector';
import { sqlConnectorFactories, sqliteConnectorFactory } from '../../../connectors/sql';
import { TransientError } from '../../../src/model/errors';
import { FakeClock } from '../../support/fake-clock';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/**
 * A target that throttles (429 with Retry-After) is waited for within the delivery — the lock is
 * renewed meanwhile — and the message then succeeds: throttling is a delay, not a failure.
 */
describe('Retry-After from the target', () => {
  let f: SyncFixture;
  const clock = new FakeClock('2026-04-01T00:00:00Z');
  let throttles = 0;

  /** The real SQLite target, answering its first `throttles` upserts with 429 Retry-After 20 s. */
  function throttling(inner: TargetConnector): TargetConnector {
    return {
      ...inner,
      upsert: async (...args) => {
        if (throttles > 0) {
          throttles--;
          throw new TransientError('HTTP 429 Too Many Requests', { retryAfterMs: 20_000 });
        }
        return inner.upsert(...args);
      },
      delete: (...args) => inner.delete(...args),
      invokeAction: (...args) => inner.invokeAction(...args),
      getTargetVersion: (...args) => inner.getTargetVersion(...args),
      close: () => inner.close(),
    };
  }

  beforeAll(async () => {
    const registry = new ConnectorRegistry([
      { ...sqliteConnectorFactory, createTarget: (ctx) => throttling(sqliteConnectorFactory.createTarget!(ctx)) },
      ...sqlConnectorFactories.filter((factory) => factory !== sqliteConnectorFactory),
    ]);
    f = await createSyncFixture({ clock, registry });
    await f.runtime.init.ensureInitialized();
  });
  afterAll(async () => {
    await f.close();
  });

  async function processOne(id: string) {
    f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)').run(id, 'Acme', 'x', `2026-01-01T00:00:0${id.slice(-1)}.000Z`);
    await f.runtime.detection.runJob(f.runtime.init.getJob('crm-accounts'));
    const [message] = await f.runtime.bus.receive(f.settings.queues.work.high, { maxMessages: 1 });
    const { busSettler } = await import('../../../src/process/bus-settler');
    const sleepsBefore = clock.sleeps.length;
    let settled = false;
    const done = f.runtime.processor.execute(message, busSettler(f.runtime.bus, message), 'sbqhigh').finally(() => (settled = true));
    // Processing does real I/O (tables, SQLite) between its sleeps: step the clock, letting that I/O finish, until it settles.
    for (let step = 0; step < 600 && !settled; step++) {
      await clock.advance(1_000);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    return { result: await done, sleeps: clock.sleeps.slice(sleepsBefore) };
  }

  it('waits Retry-After and succeeds in the same delivery', async () => {
    throttles = 2;
    const { result, sleeps } = await processOne('A-1');
    expect(result).toMatchObject({ outcome: 'Success', disposition: 'completed' });
    expect(sleeps).toEqual([20_000, 20_000]);
    expect(f.erp.prepare('SELECT count(*) AS n FROM customers WHERE crm_id = ?').get('A-1')).toEqual({ n: 1 });
    await f.drain();
  });

  it('abandons for redelivery when the target keeps throttling', async () => {
    throttles = 5;
    const { result, sleeps } = await processOne('A-2');
    expect(result).toMatchObject({ outcome: 'Failed', disposition: 'abandoned', error: 'HTTP 429 Too Many Requests' });
    expect(sleeps).toEqual([20_000, 20_000]);
    throttles = 0;
  });
});
