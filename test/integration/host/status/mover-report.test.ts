import { OUTDATED_REASON } from '../../../../src/mover/normalize-error';
import { moverDryRunReport, type MoverReportRuntime } from '../../../../src/host/status/mover-report';
import { readSettings } from '../../../../src/platform/settings';
import { MoverFixture } from '../../tools/dead-letter-mover/mover-fixture';

/**
 * The status page's dry run calls the mover's library on the host's open bus
 * (lent: still open afterwards) and shows the report the command line prints for the same source.
 */
describe('the status page’s dry run of the dead-letter mover', () => {
  let fx: MoverFixture;
  let runtime: MoverReportRuntime;
  beforeEach(async () => {
    fx = new MoverFixture();
    const bus = await fx.open();
    runtime = { settings: readSettings({ HIGHWATER_DATA_DIR: fx.dataDir }, fx.dir), bus, init: { ensureInitialized: async () => ({ jobs: [] }) } };
  });
  afterEach(() => fx.cleanup());

  it('shows what the command line prints, changes nothing and leaves the bus open', async () => {
    await fx.deadLetter('sbqnormal', [
      { sourceKey: 'a', errorMessage: 'request timed out after 30000 ms' },
      { sourceKey: 'b', errorMessage: 'request timed out after 15000 ms' },
      { sourceKey: 'c', errorMessage: 'validation failed: name', errorType: 'PermanentError' },
    ]);
    const result = await moverDryRunReport(runtime, { queue: 'sbqnormal', deadLetter: true });
    const cli = await fx.run(['--queue', 'sbqnormal', '--dead-letter', '--data-dir', fx.dataDir], { cwd: process.cwd() });

    expect(result.exitCode).toBe(0);
    expect([cli.code, cli.err]).toEqual([0, '']);
    expect(result.lines.join('\n')).toBe(cli.out);
    expect(result.lines[0]).toBe('Dry run: nothing is changed (add --apply to act).');
    expect(result.lines).toContain('Resubmit → sbqnormal, rule "transient-infrastructure" (rules[2]): 2');
    expect((await fx.bus.counts('sbqnormal')).deadLetter).toBe(3);
  });

  it('names why messages wait in the ignored queue, and refuses a queue the host does not use', async () => {
    await fx.park('sbqignored', [{ sourceKey: 'a' }]);
    const result = await moverDryRunReport(runtime, { queue: 'sbqignored', deadLetter: false });
    expect(result.exitCode).toBe(0);
    expect(result.lines).toContain(`      1  ${OUTDATED_REASON}`);
    await expect(moverDryRunReport(runtime, { queue: 'sbqother', deadLetter: false })).rejects.toThrow('queue: unknown queue "sbqother"');
  });

  it('shows a failing pass as an error line', async () => {
    const failing = { ...runtime, init: { ensureInitialized: () => Promise.reject(new Error('config unreadable')) } };
    expect(await moverDryRunReport(failing, { queue: 'sbqnormal', deadLetter: true })).toEqual({ exitCode: 1, lines: ['error: config unreadable'] });
  });
});
