import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { createBus } from '../../../src/bus/create-bus';
import { LocalBus } from '../../../src/bus/local/local-bus';
import { registerQueuesCommand } from '../../../src/cli/commands/queues';
import { readSettings } from '../../../src/platform/settings';
import { allQueueNames } from '../../../src/platform/queue-topology';

/** `highwater queues` on the real local bus, as `createBus` selects it without Service Bus settings. */
describe('highwater queues on the local bus', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'highwater-queues-cli-'));
    const settings = readSettings({ HIGHWATER_DATA_DIR: dataDir });
    const bus = await LocalBus.open({ dataDir, queues: allQueueNames(settings.queues) });
    await bus.send('sbqhigh', [{ body: 'a' }, { body: 'b' }, { body: 'later', scheduledEnqueueTime: new Date(Date.now() + 3_600_000) }]);
    const [m] = await bus.receive('sbqhigh');
    await bus.deadLetter(m, { reason: 'test' });
    await bus.send('sbqignored', [{ body: 'old' }]);
    await bus.close();
  });

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints the counts of every configured queue', async () => {
    const lines: string[] = [];
    const program = new Command('highwater').exitOverride();
    registerQueuesCommand(program, {
      settings: () => readSettings({ HIGHWATER_DATA_DIR: dataDir }),
      createBus: (settings) => createBus(settings),
      print: (line) => lines.push(line),
    });
    await program.parseAsync(['queues', '--json'], { from: 'user' });
    const rows = JSON.parse(lines.join('\n'));
    expect(rows).toEqual([
      { queue: 'sbqhigh', counts: { active: 1, scheduled: 1, deadLetter: 1 } },
      { queue: 'sbqnormal', counts: { active: 0, scheduled: 0, deadLetter: 0 } },
      { queue: 'sbqlow', counts: { active: 0, scheduled: 0, deadLetter: 0 } },
      { queue: 'sbqtransitivehigh', counts: { active: 0, scheduled: 0, deadLetter: 0 } },
      { queue: 'sbqtransitivenormal', counts: { active: 0, scheduled: 0, deadLetter: 0 } },
      { queue: 'sbqtransitivelow', counts: { active: 0, scheduled: 0, deadLetter: 0 } },
      { queue: 'sbqignored', counts: { active: 1, scheduled: 0, deadLetter: 0 } },
    ]);
  });
});
