/**
 * "Did you mean …?" for a mistyped property name: the known name closest to what was typed, when
 * it is close enough to be the likely intent (a case slip, one or two letters wrong or swapped).
 */

/** Edit distance with adjacent transpositions (optimal string alignment), case-insensitive. */
function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) => [i, ...Array<number>(t.length).fill(0)]);
  for (let j = 1; j <= t.length; j++) d[0][j] = j;
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[s.length][t.length];
}

/**
 * The known name `typed` most likely means, or undefined. Close enough: at most 1 edit for names
 * up to 4 characters, 2 for longer ones (`pagesize`, `pageSzie`, `priorty` → found; `foo` → none).
 * Ties go to the first name in `known`.
 */
function closestName(typed: string, known: readonly string[]): string | undefined {
  const limit = typed.length <= 4 ? 1 : 2;
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    if (name === typed) continue;
    const distance = editDistance(typed, name);
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** `unknown property`, with `; did you mean NAME?` when a known name is close. */
export function unknownPropertyMessage(typed: string, known: readonly string[]): string {
  const suggestion = closestName(typed, known);
  return suggestion === undefined ? 'unknown property' : `unknown property; did you mean ${suggestion}?`;
}
