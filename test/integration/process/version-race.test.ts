import { toOutgoingMessage } from '../../../src/bus/message-properties';
import type { ReceivedMessage } from '../../../src/bus/message-bus';
import { JobActionType } from '../../../src/model/job';
import { createQueueMessage } from '../../../src/model/queue-message';
import { busSettler } from '../../../src/process/bus-settler';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/**
 * Writes that cannot overwrite newer data: two versions of one record processed at the same time
 * (two batches in flight, as the local host and two Functions instances run them), in either
 * order, 1,000 times. With `skipOutdatedMessages` the version check travels inside the write, so
 * the newer version always ends in the target and the older is ignored. (Check-then-act — read the
 * version, then write unconditionally — lets the older land last.)
 */
describe('skip-outdated under concurrency', () => {
  let f: SyncFixture;
  beforeAll(async () => {
    f = await createSyncFixture();
    await f.runtime.init.ensureInitialized();
  });
  afterAll(async () => {
    await f.close();
  });

  const ROUNDS = 1_000;

  it(`the newer of two concurrent versions always wins (${ROUNDS} rounds)`, async () => {
    const queue = f.settings.queues.work.high;
    const wrong: string[] = [];
    let ignored = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const id = `R-${round % 50}`;
      const older = `2026-02-01T00:00:${String(Math.floor(round / 50) * 2).padStart(2, '0')}.000Z`;
      const newer = `2026-02-01T00:00:${String(Math.floor(round / 50) * 2 + 1).padStart(2, '0')}.000Z`;
      const versions = round % 2 === 0 ? [older, newer] : [newer, older];
      const outgoing = versions.map((modified) =>
        toOutgoingMessage(
          createQueueMessage({
            jobName: 'crm-accounts',
            action: JobActionType.NewUpdate,
            sourceKey: id,
            targetKey: { crm_id: id },
            changeTracker: modified.replace('.000Z', '.0000000Z'),
            fields: { crm_id: id, name: `V ${modified}`, city: 'x', modified_at: modified },
          }),
        ),
      );
      await f.runtime.bus.send(queue, outgoing);
      const first: ReceivedMessage[] = await f.runtime.bus.receive(queue, { maxMessages: 1 });
      const second: ReceivedMessage[] = await f.runtime.bus.receive(queue, { maxMessages: 1 });
      const results = await Promise.all(
        [first[0], second[0]].map((message) => f.runtime.processor.executeBatch([{ message, settler: busSettler(f.runtime.bus, message) }], queue)),
      );
      ignored += results.flat().filter((r) => r.outcome === 'Ignored').length;
      const row = f.erp.prepare('SELECT modified_at FROM customers WHERE crm_id = ?').get(id) as { modified_at: string };
      if (row.modified_at !== newer) wrong.push(`round ${round}: ${id} holds ${row.modified_at}, not ${newer}`);
      // Response messages of the job (customer numbers): not part of this test.
      const responses = await f.runtime.bus.receive(queue, { maxMessages: 10 });
      await f.runtime.bus.completeMany(responses);
    }
    expect(wrong).toEqual([]);
    expect(ignored).toBeGreaterThan(0);
  }, 240_000);
});
