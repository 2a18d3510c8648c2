import path from 'node:path';
import { MoverFixture } from './mover-fixture';

/**
 * `--queue` must name one of Highwater's queues. Their names are settings (`QUEUE_*`), so an
 * unknown one is reported before anything else is needed — `--config`, `--to`, even the bus —
 * with the known names; exit 2 and nothing touched.
 */

const USAGE = 'usage: dead-letter-mover --queue <name> [--dead-letter] [--rules <file>] [--apply] [options] (--help lists every option)';
const DEFAULT_NAMES = 'sbqhigh, sbqnormal, sbqlow, sbqtransitivehigh, sbqtransitivenormal, sbqtransitivelow, sbqignored';

describe('dead-letter-mover --queue', () => {
  const fx = new MoverFixture();

  beforeAll(async () => {
    await fx.open();
    await fx.deadLetter('sbqnormal', [{ sourceKey: 'a', errorMessage: 'timeout' }]);
  });

  afterAll(() => fx.cleanup());

  async function expectUsageError(argv: string[], message: string, env?: NodeJS.ProcessEnv): Promise<void> {
    const run = await fx.run(argv, env ? { env } : {});
    expect({ code: run.code, out: run.out, err: run.err }).toEqual({ code: 2, out: '', err: `${message}\n${USAGE}` });
    expect(await fx.bus.counts('sbqnormal')).toEqual({ active: 0, scheduled: 0, deadLetter: 1 });
  }

  it('names an unknown queue and the known ones, without --config', async () => {
    await expectUsageError(['--queue', 'nope'], `error: --queue nope: unknown queue (known: ${DEFAULT_NAMES})`);
    await expectUsageError(['--queue', 'nope', '--dead-letter', '--apply'], `error: --queue nope: unknown queue (known: ${DEFAULT_NAMES})`);
  });

  it('does so before the other flags: --to does not make an unknown queue usable, nor is a bad --rules reported first', async () => {
    const unknown = `error: --queue nope: unknown queue (known: ${DEFAULT_NAMES})`;
    await expectUsageError(['--queue', 'nope', '--to', 'sbqlow'], unknown);
    await expectUsageError(['--queue', 'nope', '--rules', 'missing.yaml'], unknown);
  });

  it('does so before looking for the bus', async () => {
    const empty = path.join(fx.dir, 'no-bus-here');
    await expectUsageError(['--queue', 'nope'], `error: --queue nope: unknown queue (known: ${DEFAULT_NAMES})`, { HIGHWATER_DATA_DIR: empty });
  });

  it('knows the queues by the QUEUE_* settings', async () => {
    const env = { HIGHWATER_DATA_DIR: fx.dataDir, QUEUE_NORMAL: 'orders-normal', QUEUE_IGNORED: 'orders-ignored' };
    const renamed = 'sbqhigh, orders-normal, sbqlow, sbqtransitivehigh, sbqtransitivenormal, sbqtransitivelow, orders-ignored';
    await expectUsageError(['--queue', 'sbqnormal'], `error: --queue sbqnormal: unknown queue (known: ${renamed})`, env);
    const run = await fx.run(['--queue', 'orders-normal'], { env });
    expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: '' });
    expect(run.out.split('\n')[1]).toBe(`Source:   orders-normal on local bus ${path.join(fx.dataDir, 'bus.sqlite')}`);
  });
});
