/**
 * Text printed to a terminal, with control characters made visible. Error texts carry source
 * values (and a dead-lettered message's `ErrorMessage` anything at all): `ESC]0;…BEL` retitles
 * the operator's terminal, `ESC[2J` clears it, a bare carriage return overwrites the line, and
 * some terminals act on longer sequences. Every text a CLI prints goes through here.
 *
 * Kept: tab and line feed (a report line may hold a multi-line message; each line still starts
 * at the left). Replaced by `\xNN` / `\uNNNN`: the other C0 controls, DEL, the C1 controls
 * (8-bit CSI U+009B and friends) and the bidirectional overrides and isolates, which reorder what
 * is shown (a file name or error that reads differently from what it is).
 */

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function visible(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` safe to write to a terminal: control characters shown as escapes, nothing else changed. */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, visible);
}
