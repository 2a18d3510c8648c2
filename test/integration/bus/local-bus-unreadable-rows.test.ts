import path from 'node:path';
import Database from 'better-sqlite3';
import { buildDeadLetterReport } from '../../../src/host/status/dead-letter-report';
import { MoverFixture, text } from '../tools/dead-letter-mover/mover-fixture';
import { DEFAULT_QUEUES } from '../../../src/platform/queue-topology';

/**
 * A local-bus row that cannot be decoded is dead-lettered alone, naming the
 * defect; the messages claimed with it are delivered; the mover and the dead-letter report list
 * and move what is readable. Rows are damaged with plain SQL, as the attack did.
 */
describe('local bus: unreadable rows', () => {
  let fx: MoverFixture;
  let raw: Database.Database;
  const jsonError = (text: string) => {
    try {
      JSON.parse(text);
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error(`${text} parses`);
  };

  beforeEach(async () => {
    fx = new MoverFixture();
    await fx.open();
    raw = new Database(path.join(fx.dataDir, 'bus.sqlite'));
  });
  afterEach(async () => {
    raw.close();
    await fx.cleanup();
  });

  const damage = (sql: string, seq: string) => raw.prepare(sql).run(Number(seq));

  it('dead-letters a row with broken properties alone and delivers the rest of the batch', async () => {
    await fx.park('sbqnormal', ['a', 'b', 'c', 'd'].map((sourceKey) => ({ sourceKey })));
    const [, b, , d] = await fx.peekAll('sbqnormal');
    damage(`UPDATE messages SET props = '{bad' WHERE seq = ?`, b.sequenceNumber);
    damage(`UPDATE messages SET props = '[1,2]' WHERE seq = ?`, d.sequenceNumber);

    const received = await fx.bus.receive('sbqnormal', { maxMessages: 10 });

    expect(received.map((m) => m.applicationProperties.SourceKey)).toEqual(['a', 'c']);
    expect(received.map((m) => m.deliveryCount)).toEqual([1, 1]);
    await fx.bus.completeMany(received);
    const dead = await fx.peekAll('sbqnormal', 'deadLetter');
    expect(dead.map((m) => [m.messageId, m.deadLetterReason, m.deadLetterErrorDescription, m.applicationProperties])).toEqual([
      [b.messageId, 'UnreadableMessage', `message ${b.sequenceNumber}: its application properties are not valid JSON (${jsonError('{bad')})`, { UnreadableProperties: '{bad' }],
      [d.messageId, 'UnreadableMessage', `message ${d.sequenceNumber}: its application properties are not a JSON object (got an array)`, { UnreadableProperties: '[1,2]' }],
    ]);
    expect(await fx.bus.counts('sbqnormal')).toEqual({ active: 0, scheduled: 0, deadLetter: 2 });
  });

  it('dead-letters a row without contents alone (listed by count only: nothing of it is left to show)', async () => {
    await fx.park('sbqnormal', [{ sourceKey: 'a' }, { sourceKey: 'b' }]);
    const [a, b] = await fx.peekAll('sbqnormal');
    damage('DELETE FROM contents WHERE seq = ?', a.sequenceNumber);

    const received = await fx.bus.receive('sbqnormal', { maxMessages: 10 });

    expect(received.map((m) => m.messageId)).toEqual([b.messageId]);
    expect(raw.prepare('SELECT dead, dl_reason, dl_description FROM messages WHERE seq = ?').get(Number(a.sequenceNumber))).toEqual({
      dead: 1,
      dl_reason: 'UnreadableMessage',
      dl_description: `message ${a.sequenceNumber}: its contents row is missing (message id and body are lost)`,
    });
    // The dead-letter subqueue stays receivable: the lost row is passed over, not thrown on.
    expect(await fx.bus.receive('sbqnormal', { subQueue: 'deadLetter', maxWaitMs: 0 })).toEqual([]);
  });

  it('lets the mover and the dead-letter report list and move the readable messages next to a damaged one', async () => {
    const ids = await fx.deadLetter('sbqnormal', [
      { sourceKey: 'a', errorMessage: 'Request timeout after 30000 ms' },
      { sourceKey: 'b', errorMessage: 'Request timeout after 30000 ms' },
      { sourceKey: 'c', errorMessage: 'Request timeout after 30000 ms' },
    ]);
    const [, b] = await fx.peekAll('sbqnormal', 'deadLetter');
    damage(`UPDATE messages SET props = '{"ErrorMessage": "x", ' WHERE seq = ?`, b.sequenceNumber);

    const report = await buildDeadLetterReport(fx.bus, DEFAULT_QUEUES);
    const normal = report.find((s) => s.queue === 'sbqnormal' && s.subQueue === 'deadLetter');
    expect(normal).toMatchObject({ count: 3, peeked: 3 });
    expect(normal?.problem).toBeUndefined();

    const run = await fx.run(['--queue', 'sbqnormal', '--dead-letter', '--rules', 'rules.yaml', '--apply', '--json']);
    expect(run.code).toBe(0);
    const result = run.json() as { snapshot: { messages: number }; results: { resubmitted: number; failed: number } };
    // The damaged one matches by its dead-letter description (its ErrorMessage is unreadable) and moves with its body.
    expect([result.snapshot.messages, result.results.resubmitted, result.results.failed]).toEqual([3, 3, 0]);
    const active = await fx.peekAll('sbqnormal');
    expect(active.map((m) => (JSON.parse(text(m.body)) as { sourceKey: string }).sourceKey).sort()).toEqual(['a', 'b', 'c']);
    expect(active.map((m) => m.applicationProperties.UnreadableProperties).filter(Boolean)).toEqual(['{"ErrorMessage": "x", ']);
    expect(await fx.bus.counts('sbqnormal')).toEqual({ active: 3, scheduled: 0, deadLetter: 0 });
    expect(ids).toHaveLength(3);
  });
});
