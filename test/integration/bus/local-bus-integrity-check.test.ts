import { mkdtempSync, openSync, rmSync, writeSync, closeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { LocalBus } from '../../../src/bus/local/local-bus';
import type { LocalBusOptions } from '../../../src/bus/local/options';

/**
 * A damaged page of the FIFO index used to be found by the first receive only
 * (the host started and said it was healthy). The file is checked when it is opened.
 */
describe('local bus: integrity check at open', () => {
  let dataDir: string;
  let file: string;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'highwater-bus-check-'));
    file = path.join(dataDir, 'bus.sqlite');
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  /** A bus with enough messages for a multi-page index, then one index leaf page overwritten. */
  async function damageIndexPage(): Promise<void> {
    const bus = await LocalBus.open({ dataDir, queues: ['q'] });
    for (let i = 0; i < 4; i++) await bus.send('q', Array.from({ length: 500 }, (_, j) => ({ body: `message ${i}-${j}` })));
    await bus.close();
    const db = new Database(file);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    // A leaf of messages_fifo: dbstat lists the index's pages; the last one is a leaf.
    const { pageno } = db.prepare("SELECT max(pageno) AS pageno FROM dbstat WHERE name = 'messages_fifo'").get() as { pageno: number };
    db.close();
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (pageno - 1) * pageSize);
    closeSync(fd);
  }

  const refusal = (problem: string) =>
    `The local bus database ${file} is damaged: PRAGMA quick_check found: ${problem}. Highwater does not start on it. ` +
    `Stop every process that uses it, move ${file} and its -wal and -shm files aside, and start again with an empty bus; ` +
    'the messages in it can be salvaged with: sqlite3 <moved file> .recover';

  async function openError(options: Partial<LocalBusOptions> = {}): Promise<{ code: string; message: string }> {
    const outcome = await LocalBus.open({ dataDir, queues: ['q'], ...options }).then(
      async (bus) => {
        await bus.close();
        return { code: 'none', message: 'opened' };
      },
      (err: { code: string; message: string }) => err,
    );
    return { code: outcome.code, message: outcome.message };
  }

  it('refuses a file with a damaged index page at open, saying what to do', async () => {
    await damageIndexPage();
    const { code, message } = await openError();
    expect(code).toBe('Corrupt');
    // The first problem quick_check reports names the page; the rest of the text is fixed.
    const problem = /found: (.*?)(?: \(and \d+ more problems?\))?\. Highwater/.exec(message)?.[1] ?? '';
    expect(problem).toMatch(/page \d+/);
    expect(message.replace(/ \(and \d+ more problems?\)/, '')).toBe(refusal(problem));
  });

  it('checks large files on a worker thread with the same verdict', async () => {
    await damageIndexPage();
    const { code, message } = await openError({ integrityCheck: { inlineUpToBytes: 0 } });
    expect(code).toBe('Corrupt');
    expect(message).toMatch(/^The local bus database .* is damaged: PRAGMA quick_check found: .*page \d+/);
  });

  it('does not wait beyond the timeout: the open goes on unchecked', async () => {
    await damageIndexPage();
    const bus = await LocalBus.open({ dataDir, queues: ['q'], integrityCheck: { inlineUpToBytes: 0, timeoutMs: 0 } });
    try {
      // Unchecked, the damage shows where it used to: at the first receive that reads the page.
      await expect(bus.receive('q', { maxMessages: 2000 })).rejects.toMatchObject({ code: 'Corrupt' });
    } finally {
      await bus.close();
    }
  });

  it('opens a sound file, new or used, as before', async () => {
    const bus = await LocalBus.open({ dataDir, queues: ['q'] });
    await bus.send('q', [{ body: 'x' }]);
    await bus.close();
    const again = await LocalBus.open({ dataDir, queues: ['q'], integrityCheck: { inlineUpToBytes: 0 } });
    expect((await again.counts('q')).active).toBe(1);
    await again.close();
  });
});
