/**
 * A record's identity as one string: key values joined with `|`, with `\` and `|` inside values
 * escaped by a backslash, so that joining and splitting are exact inverses.
 */
export function joinSourceKey(values: ReadonlyArray<unknown>): string {
  return values.map((v) => (v === null || v === undefined ? '' : String(v)).replace(/\\/g, '\\\\').replace(/\|/g, '\\|')).join('|');
}

export function splitSourceKey(key: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < key.length; i++) {
    const ch = key[i];
    if (ch === '\\' && i + 1 < key.length) {
      current += key[++i];
    } else if (ch === '|') {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}
