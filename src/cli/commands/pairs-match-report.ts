import type { Pair, PairSideName } from '../../model/pair';
import type { InitialMatch } from '../../twoway/initial-match';

/** Examples printed per group (all of them with `--json`). */
const MATCH_EXAMPLES = 20;

/** What `highwater pairs match` found and did, as `--json` prints it. */
export interface PairMatchReport extends InitialMatch {
  pair: string;
  /** Records read per side, and rows that could not be read (`skipFailedRows`). */
  read: Record<PairSideName, { records: number; skipped: number }>;
  /** False on a dry run. */
  applied: boolean;
  /** Couplings written by `--apply`. */
  written: number;
  /** Matched records another writer (a running sync) coupled meanwhile: left as they are. */
  coupledMeanwhile: Array<{ keyA: string; keyB: string }>;
  /** Ambiguous records `--apply` holds (parked as conflicts, not synced until resolved). */
  held: number;
  /** Holds `--apply` released: their records are no longer ambiguous. */
  released: number;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** At most {@link MATCH_EXAMPLES} lines of a group, then how many more there are. */
function examples<T>(title: string, items: readonly T[], line: (item: T) => string): string[] {
  if (items.length === 0) return [];
  const shown = items.slice(0, MATCH_EXAMPLES).map((item) => `  ${line(item)}`);
  const more = items.length > MATCH_EXAMPLES ? [`  … ${items.length - MATCH_EXAMPLES} more (--json lists all)`] : [];
  return [`${title}:`, ...shown, ...more];
}

/** The human output of `highwater pairs match`: counts, then examples of each group. */
export function formatMatchReport(report: PairMatchReport, pair: Pair): string[] {
  const side = (s: PairSideName) => `side ${s} (${pair[s].connection} ${pair[s].entity})`;
  const byFields = report.matched.filter((m) => m.by === 'fields').length;
  const ambiguousA = report.ambiguous.reduce((n, g) => n + g.a.length, 0);
  const ambiguousB = report.ambiguous.reduce((n, g) => n + g.b.length, 0);
  const skipped = (s: PairSideName) => (report.read[s].skipped > 0 ? ` (${plural(report.read[s].skipped, 'row')} unreadable, skipped)` : '');
  const lines = [
    `pair ${report.pair}: read ${plural(report.read.a.records, 'record')} of ${side('a')}${skipped('a')}, ${report.read.b.records} of ${side('b')}${skipped('b')}`,
    `  matched      ${report.matched.length} (${byFields} by match fields, ${report.matched.length - byFields} by shared key)`,
    `  ambiguous    ${report.ambiguous.length} group${report.ambiguous.length === 1 ? '' : 's'} (${ambiguousA} a, ${ambiguousB} b records): not coupled; --apply holds them until resolved`,
    ...(report.keyOnly.length > 0 ? [`  same key     ${report.keyOnly.length} with differing match fields: the first sync couples them by key`] : []),
    `  unmatched a  ${report.unmatchedA.length}: the first sync creates them on side b`,
    `  unmatched b  ${report.unmatchedB.length}: the first sync creates them on side a`,
    `  coupled      ${report.coupledA.length} a, ${report.coupledB.length} b records already: skipped`,
    ...examples('matched', report.matched, (m) => `${m.keyA} ↔ ${m.keyB}${m.by === 'key' ? ' (shared key)' : ''}`),
    ...examples('ambiguous', report.ambiguous, (g) => `${JSON.stringify(g.values)}: a ${g.a.join(', ')} ↔ b ${g.b.join(', ')}`),
    ...examples('same key, match fields differ', report.keyOnly, (k) => `${k.keyA} ↔ ${k.keyB}`),
    ...examples('unmatched a', report.unmatchedA, (key) => key),
    ...examples('unmatched b', report.unmatchedB, (key) => key),
  ];
  if (!report.applied) {
    const hint = report.matched.length > 0 ? `; run again with --apply to couple the ${plural(report.matched.length, 'matched record')}` : '';
    lines.push(`dry run: nothing written${hint}`);
  } else {
    const meanwhile = report.coupledMeanwhile.length > 0 ? ` (${report.coupledMeanwhile.length} coupled meanwhile, left as they are)` : '';
    const released = report.released > 0 ? `, ${report.released} released` : '';
    lines.push(`applied: ${plural(report.written, 'coupling')} written${meanwhile}; ${plural(report.held, 'ambiguous record')} held${released} (see highwater conflicts list)`);
    lines.push("next: the pair's jobs merge the coupled records on their first sync; fix or resolve the held ones (highwater conflicts resolve PAIR KEY_A --take SIDE creates one on the other side)");
  }
  return lines;
}
