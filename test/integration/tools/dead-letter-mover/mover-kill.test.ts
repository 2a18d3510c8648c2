import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { MoverFixture } from './mover-fixture';

/**
 * `kill -9` of the mover (a child process running the bin's TypeScript entry) in the middle of
 * `--apply` on a real local bus loses no message: each is in the dead-letter subqueue or in the
 * work queue, and a later run moves the rest, with no duplicates left in the work queue.
 */

const ROOT = path.resolve(__dirname, '../../../..');
const MAIN = path.join(ROOT, 'tools/dead-letter-mover/main.ts');
const REGISTER = path.join(ROOT, 'src/platform/swc-register.js');
const COUNT = 2000;
const LOCK_MS = 1000;

describe('dead-letter-mover killed with SIGKILL mid-run', () => {
  const fx = new MoverFixture();

  beforeAll(async () => {
    await fx.open({ lockDurationMs: LOCK_MS });
    writeFileSync(path.join(fx.dir, 'all.yaml'), 'rules:\n  - match: {}\n    action: Resubmit\n');
    const messages = Array.from({ length: COUNT }, (_, i) => ({ sourceKey: `k${i}`, errorMessage: 'timeout' }));
    await fx.park('sbqnormal', messages);
    // Small receives: each batch is dead-lettered one by one, a durable commit each, well within
    // the 1 s lock even on a loaded machine (batches of 200 lost their lock on a busy CI run).
    for (let moved = 0; moved < COUNT; ) {
      const batch = await fx.bus.receive('sbqnormal', { maxMessages: 20 });
      for (const m of batch) await fx.bus.deadLetter(m, { reason: 'MaxDeliveryCountExceeded' });
      moved += batch.length;
    }
  });

  afterAll(() => fx.cleanup());

  /** Starts the mover and kills it with SIGKILL once it has reported `afterProgress` batches. */
  function runAndKill(afterProgress: number): Promise<{ progressLines: number; exit: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['-r', REGISTER, MAIN, '--queue', 'sbqnormal', '--dead-letter', '--rules', 'all.yaml', '--apply'], {
        cwd: fx.dir,
        env: { PATH: process.env.PATH, HIGHWATER_DATA_DIR: fx.dataDir },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let progressLines = 0;
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        progressLines += chunk.split('\n').filter((line) => line.startsWith('progress:')).length;
        if (progressLines >= afterProgress) child.kill('SIGKILL');
      });
      child.on('error', reject);
      child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve({ progressLines, exit: 'SIGKILL' }) : reject(new Error(`mover exited ${code} before the kill: ${stderr}`))));
    });
  }

  async function sourceKeys(subQueue?: 'deadLetter'): Promise<string[]> {
    return (await fx.peekAll('sbqnormal', subQueue)).map((m) => String(m.applicationProperties.SourceKey));
  }

  async function expectNothingLost(): Promise<{ moved: number; left: number }> {
    const dead = await sourceKeys('deadLetter');
    const work = await sourceKeys();
    const everywhere = new Set([...dead, ...work]);
    expect(everywhere.size).toBe(COUNT);
    expect(new Set(work).size).toBe(work.length); // duplicate detection absorbed any resend
    return { moved: work.length, left: dead.length };
  }

  it('loses nothing when killed after the first batch and again after a few more; a final run completes', async () => {
    await runAndKill(1);
    const afterFirst = await expectNothingLost();
    expect(afterFirst.left).toBeGreaterThan(0); // it really was killed mid-run

    await new Promise((resolve) => setTimeout(resolve, LOCK_MS + 200)); // the dead process's locks expire
    await runAndKill(3);
    const afterSecond = await expectNothingLost();
    expect(afterSecond.moved).toBeGreaterThan(afterFirst.moved);
    expect(afterSecond.left).toBeGreaterThan(0);

    await new Promise((resolve) => setTimeout(resolve, LOCK_MS + 200));
    const final = await fx.run(['--queue', 'sbqnormal', '--dead-letter', '--rules', 'all.yaml', '--apply']);
    expect(final.code).toBe(0);
    expect(await expectNothingLost()).toEqual({ moved: COUNT, left: 0 });
  });
});
