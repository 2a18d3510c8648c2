import { reportCliError } from '../../../src/cli/cli-error';

/** An error text (which can carry source values) is printed terminal-safe. */
describe('reportCliError', () => {
  it('shows control characters of the message as escapes', () => {
    const lines: string[] = [];
    const spy = jest.spyOn(console, 'error').mockImplementation((line: string) => void lines.push(line));
    try {
      expect(reportCliError(new Error('source value "\u001b]0;x\u0007\u001b[2J" rejected'))).toBe(1);
    } finally {
      spy.mockRestore();
    }
    expect(lines).toEqual(['error: source value "\\x1b]0;x\\x07\\x1b[2J" rejected']);
  });
});
