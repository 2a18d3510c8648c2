import { MoverFixture } from './mover-fixture';

/**
 * An `ErrorMessage` holding `ESC]0;…BEL ESC[2J` (a dead-lettered message can
 * carry any source value in its error) was printed raw by the mover. Every line it prints now
 * shows control characters as escapes.
 */
describe('dead-letter-mover: control characters in what it prints', () => {
  let fx: MoverFixture;
  beforeEach(async () => {
    fx = new MoverFixture();
    await fx.open();
  });
  afterEach(() => fx.cleanup());

  it('prints an error text with escape sequences neutralised, in the report and in JSON', async () => {
    await fx.deadLetter('sbqnormal', [{ sourceKey: 'a', errorMessage: 'bad name \u001b]0;owned\u0007\u001b[2J\rsource value' }]);

    const run = await fx.run(['--queue', 'sbqnormal', '--dead-letter', '--rules', 'rules.yaml']);
    expect(run.code).toBe(0);
    // eslint-disable-next-line no-control-regex
    expect(run.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(run.out).toContain('bad name \\x1b]0;owned\\x07\\x1b[2J source value');

    const json = await fx.run(['--queue', 'sbqnormal', '--dead-letter', '--rules', 'rules.yaml', '--json']);
    // eslint-disable-next-line no-control-regex
    expect(json.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });
});
