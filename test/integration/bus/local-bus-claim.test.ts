import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { LocalBus } from '../../../src/bus/local/local-bus';

/** Receiving reads a message's state and contents in one statement: a missing half is damage. */
describe('LocalBus claim', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'highwater-bus-claim-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('dead-letters a message without its contents row alone and delivers the one claimed before it', async () => {
    const bus = await LocalBus.open({ dataDir, queues: ['q'] });
    try {
      await bus.send('q', [{ body: 'a', messageId: 'a' }, { body: 'b', messageId: 'b' }]);
      const [a, b] = await bus.peek('q');
      const raw = new Database(path.join(dataDir, 'bus.sqlite'));
      raw.prepare('DELETE FROM contents WHERE seq = ?').run(Number(b.sequenceNumber));
      raw.close();
      const received = await bus.receive('q', { maxMessages: 2 });
      expect(received.map((m) => [m.messageId, m.deliveryCount])).toEqual([[a.messageId, 1]]);
      expect(await bus.counts('q')).toEqual({ active: 1, scheduled: 0, deadLetter: 1 });
    } finally {
      await bus.close();
    }
  });

  it('locks what it returns: token, expiry and delivery count as stored', async () => {
    let now = Date.parse('2026-03-01T00:00:00Z');
    const bus = await LocalBus.open({ dataDir, queues: [{ name: 'q', lockDurationMs: 5000 }], clock: { now: () => new Date(now) } });
    try {
      await bus.send('q', [{ body: 'x', messageId: 'x', subject: 's', correlationId: 'c', contentType: 'text/plain', applicationProperties: { p: 1 } }]);
      const [first] = await bus.receive('q');
      expect(first).toMatchObject({ messageId: 'x', subject: 's', correlationId: 'c', contentType: 'text/plain', applicationProperties: { p: 1 }, deliveryCount: 1 });
      expect(first.lockedUntil.getTime()).toBe(now + 5000);
      now += 5001;
      const [second] = await bus.receive('q');
      expect(second.deliveryCount).toBe(2);
      expect(second.lockToken).not.toBe(first.lockToken);
      await expect(bus.complete(first)).rejects.toMatchObject({ code: 'LockLost' });
      await bus.complete(second);
      expect(await bus.counts('q')).toEqual({ active: 0, scheduled: 0, deadLetter: 0 });
    } finally {
      await bus.close();
    }
  });
});
