import { appendFileSync } from 'node:fs';
import type { Verdict } from './verify';

/**
 * One line per run for the record (docs/reliability.md): printed, and appended as JSON to
 * `$HIGHWATER_E2E_RESULTS` when that is set.
 */
export function reportRun(suite: string, facts: Record<string, unknown>, verdict: Verdict): void {
  reportLine(suite, { ...facts, ...summary(verdict) });
}

/** Any suite's line for the record: printed, and appended to `$HIGHWATER_E2E_RESULTS` when that is set. */
export function reportLine(suite: string, facts: Record<string, unknown>): void {
  const line = { suite, ...facts };
  process.stdout.write(`${suite}: ${JSON.stringify(line)}\n`);
  const file = process.env.HIGHWATER_E2E_RESULTS;
  if (file) appendFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), ...line })}\n`);
}

function summary(verdict: Verdict) {
  return {
    rows: verdict.rows,
    mismatches: verdict.mismatches.length,
    lost: verdict.lost,
    duplicatesApplied: verdict.duplicatesApplied,
    resentAbsorbed: verdict.resent,
    sideQueues: verdict.sideQueues,
  };
}

/** The first few mismatches, readable, for a failure message. */
export function describeMismatches(verdict: Verdict, seed: number, dir: string): string {
  const shown = verdict.mismatches.slice(0, 10).map((m) => `  ${m.job} ${m.key}: ${m.kind} (${m.cause}) expected ${JSON.stringify(m.expected)} got ${JSON.stringify(m.actual)}`);
  return `seed ${seed} (rerun with HIGHWATER_SEED=${seed}); rig kept in ${dir}\n${verdict.mismatches.length} mismatches:\n${shown.join('\n')}`;
}
