import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LocalBus } from '../../../src/bus/local/local-bus';
import { runCli } from '../../../src/cli/main';
import { runMover } from '../../../tools/dead-letter-mover/main';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';
import { writeSyncFolder, type SyncFolder } from '../../e2e/faults/support/sync-folder';
import { HIGHWATER_CASES, MOVER_CASES, type CliCase } from './support/cli-cases';
import { captureCliOutput } from './support/cli-output';
import { yamlOf } from './support/config-folder';
import { storedState } from './support/stored-state';
import { allQueueNames, DEFAULT_QUEUES } from '../../../src/platform/queue-topology';

/**
 * Invalid invocations of `highwater` and `dead-letter-mover`: unknown commands and flags, bad
 * values, missing arguments. Each exits 2 (1 for an invalid config folder) with a first error
 * line naming the flag or argument, prints nothing on stdout, and changes nothing stored: the
 * tables (every entity and ETag) and every queue of the local bus are as before.
 */
describe('invalid CLI invocations', () => {
  let azurite: TestAzurite;
  let folder: SyncFolder;
  let dataDir: string;
  let broken: string;
  let before: Record<string, unknown>;
  const savedEnv = { storage: process.env.AzureWebJobsStorage, dataDir: process.env.HIGHWATER_DATA_DIR };

  /** Tables and message counts of every queue (the bus is opened read-only in spirit: counts only). */
  async function state(): Promise<Record<string, unknown>> {
    const bus = await LocalBus.open({ dataDir, queues: allQueueNames(DEFAULT_QUEUES) });
    try {
      const queues = await Promise.all(allQueueNames(DEFAULT_QUEUES).map(async (q) => [q, await bus.counts(q)]));
      return { tables: await storedState(azurite.connectionString), queues };
    } finally {
      await bus.close();
    }
  }

  const resolve = (arg: string) => arg.replace('{config}', folder.dir).replace('{broken}', broken).replaceAll('{data}', dataDir);

  beforeAll(async () => {
    azurite = await startTestAzurite();
    folder = writeSyncFolder();
    folder.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)').run('A-1', 'Acme', 'Bonn', '2026-01-01T00:00:00.000Z');
    dataDir = path.join(folder.dir, 'data');
    broken = path.join(folder.dir, 'broken');
    mkdirSync(broken);
    writeFileSync(path.join(broken, 'connections.yaml'), yamlOf('connections', () => {}));
    writeFileSync(path.join(broken, 'mappings.yaml'), yamlOf('mappings', () => {}));
    writeFileSync(path.join(broken, 'jobs.yaml'), yamlOf('jobs', (c) => (c.jobs[0].schedule = '0 61 * * * *')));
    process.env.AzureWebJobsStorage = azurite.connectionString;
    process.env.HIGHWATER_DATA_DIR = dataDir;
    // State worth protecting: configuration in the tables, a watermark, a run record, a message in a queue.
    const output = captureCliOutput();
    try {
      expect(await runCli(['config', 'push', '--config', folder.dir])).toBe(0);
      expect(await runCli(['run', 'crm-accounts', '--config', folder.dir])).toBe(0);
    } finally {
      output.restore();
    }
    before = await state();
    expect(before.queues).toContainEqual(['sbqhigh', { active: 1, scheduled: 0, deadLetter: 0 }]);
  }, 60_000);

  afterAll(async () => {
    for (const [name, value] of [['AzureWebJobsStorage', savedEnv.storage], ['HIGHWATER_DATA_DIR', savedEnv.dataDir]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await azurite?.stop();
    folder?.close();
    if (folder) rmSync(folder.dir, { recursive: true, force: true });
  });

  async function check(run: (argv: string[]) => Promise<number>, c: CliCase): Promise<void> {
    const output = captureCliOutput();
    let code: number;
    try {
      code = await run(c.argv.map(resolve));
    } finally {
      output.restore();
    }
    const firstLine = output.stderr.join('').split('\n')[0];
    expect({ code, firstLine, stdout: output.stdout }).toEqual({ code: c.exitCode, firstLine: resolve(c.error), stdout: [] });
  }

  const title = (c: CliCase) => `${c.argv.join(' ') || '(no arguments)'} → ${c.exitCode}`;

  describe('highwater', () => {
    it.each(HIGHWATER_CASES.map((c) => [title(c), c] as const))('%s', (_title, c) => check(runCli, c));
  });

  describe('dead-letter-mover', () => {
    it.each(MOVER_CASES.map((c) => [title(c), c] as const))('%s', (_title, c) =>
      check((argv) => runMover(argv, { out: (line) => console.log(line), err: (line) => process.stderr.write(`${line}\n`), env: process.env }), c),
    );
  });

  it('changed nothing stored', async () => {
    expect(await state()).toEqual(before);
  });
});
