import { terminalText } from '../../../src/platform/terminal-text';

/** Control characters never reach a terminal as such. */
describe('terminalText', () => {
  it.each([
    ['retitle and clear: ESC]0;…BEL ESC[2J', 'x\u001b]0;pwned\u0007\u001b[2J', 'x\\x1b]0;pwned\\x07\\x1b[2J'],
    ['a carriage return that would overwrite the line', 'ok\rFAILED', 'ok\\x0dFAILED'],
    ['8-bit CSI and DEL', 'a\u009b31mb\u007f', 'a\\x9b31mb\\x7f'],
    ['a bidirectional override that reorders what is shown', 'invoice\u202Efdp.exe', 'invoice\\u202efdp.exe'],
    ['NUL and backspace', 'a\u0000b\u0008', 'a\\x00b\\x08'],
  ])('shows %s as escapes', (_label, input, expected) => {
    expect(terminalText(input)).toBe(expected);
  });

  it('leaves ordinary text, tabs, line feeds and non-Latin letters alone', () => {
    const text = 'Grüße\tnaïve 東京 — ok\nnext line';
    expect(terminalText(text)).toBe(text);
  });
});
