import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { MoverFixture } from './mover-fixture';

/** Bad arguments: exit code 2 with a message naming the problem and the usage; nothing is touched. */

const USAGE = 'usage: dead-letter-mover --queue <name> [--dead-letter] [--rules <file>] [--apply] [options] (--help lists every option)';

describe('dead-letter-mover arguments', () => {
  const fx = new MoverFixture();

  beforeAll(async () => {
    await fx.open();
    await fx.deadLetter('sbqnormal', [{ sourceKey: 'a', errorMessage: 'timeout' }]);
  });

  afterAll(() => fx.cleanup());

  async function expectUsageError(argv: string[], message: string, env?: NodeJS.ProcessEnv): Promise<string> {
    const run = await fx.run(argv, env ? { env } : {});
    expect(run.code).toBe(2);
    expect(run.err).toContain(message);
    expect(run.out).toBe('');
    expect(await fx.bus.counts('sbqnormal')).toEqual({ active: 0, scheduled: 0, deadLetter: 1 });
    return run.err;
  }

  it('a bad rules file: exit 2 naming the rule and the field', async () => {
    writeFileSync(
      path.join(fx.dir, 'bad.yaml'),
      'rules:\n  - { name: ok, match: { errorMessage: x }, action: None }\n  - name: broken\n    match: { errorMessage: "/[z-a]/" }\n    action: Resubmit\n',
    );
    const err = await expectUsageError(
      ['--queue', 'sbqnormal', '--dead-letter', '--rules', 'bad.yaml', '--apply'],
      'error: bad.yaml: rules[1].match.errorMessage: invalid regular expression /[z-a]/: Range out of order in character class (rule "broken")',
    );
    expect(err).toContain(USAGE);
  });

  it.each([
    [['--queue', 'sbqnormal', '--rules', 'missing.yaml'], 'error: missing.yaml: cannot read the rules file (no such file)'],
    [['--dead-letter'], "error: required option '-q, --queue <name>' not specified"],
    [['--queue', 'sbqnormal', '--bogus'], "error: unknown option '--bogus'"],
    [['--queue', 'sbqnormal', '--max', '0'], "error: option '--max <n>' argument '0' is invalid. expected a positive integer."],
    [['--queue', 'sbqnormal', '--older-than', 'soon'], "error: option '--older-than <duration>' argument 'soon' is invalid. expected a duration like 30m, 2h, 1h30m, 7d or PT1H."],
    [['--queue', 'sbqnormal', '--to', 'sbqignored'], 'error: --to: "sbqignored" is not a work queue (expected one of sbqhigh, sbqnormal, sbqlow)'],
    [['--queue', 'nosuchqueue', '--to', 'sbqlow'], 'error: --queue nosuchqueue: '],
    [['--queue', 'sbqignored'], 'error: --queue sbqignored: the work queue to resubmit to depends on each message\'s job priority; pass --config DIR'],
    [['--queue', 'sbqignored', '--config', 'no-such-dir'], 'error: --config '],
    [['--queue', 'sbqnormal', '--data-dir', 'x', '--namespace', 'y.servicebus.windows.net'], 'error: --data-dir and --namespace pick different buses: give one of them'],
    [['--queue', 'sbqnormal', '--connection-env', 'NOT_SET_ANYWHERE'], 'error: --connection-env: the environment variable NOT_SET_ANYWHERE is not set'],
  ])('%j → exit 2', async (argv, message) => {
    await expectUsageError(argv, message);
  });

  it('a missing local bus is not created (a dry run changes nothing)', async () => {
    const empty = path.join(fx.dir, 'empty');
    await expectUsageError(['--queue', 'sbqnormal'], `error: no local bus at ${path.join(empty, 'bus.sqlite')}: pass --data-dir or set HIGHWATER_DATA_DIR`, { HIGHWATER_DATA_DIR: empty });
  });

  it('never prints a connection string, even when it is malformed', async () => {
    const secret = 'Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=TOP-SECRET-VALUE=';
    const run = await fx.run(['--queue', 'sbqnormal'], { env: { SERVICEBUS_CONNECTION_STRING: secret.replace('SharedAccessKey=', 'NoKey=') } });
    expect(run.code).toBe(1);
    expect(`${run.out}${run.err}`).not.toContain('TOP-SECRET-VALUE');
    expect(run.err).toBe('error: Service Bus connection string: malformed (expected Endpoint=sb://…;SharedAccessKeyName=…;SharedAccessKey=…)');
  });

  it('a parser error prints the error and one usage line, not the whole help', async () => {
    const run = await fx.run(['--queue', 'sbqnormal', '--bogus']);
    expect(run.code).toBe(2);
    expect(run.err.split('\n')).toEqual(["error: unknown option '--bogus'", USAGE]);
  });

  it('--help prints the usage and exits 0', async () => {
    const run = await fx.run(['--help']);
    expect(run.code).toBe(0);
    expect(run.out).toContain('Usage: dead-letter-mover --queue <name> [--dead-letter] [--rules <file>] [--apply] [options]');
    expect(run.out).toContain('--older-than <duration>');
  });
});
