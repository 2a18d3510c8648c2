import type { CouplingStore } from './coupling-store';

/**
 * Forgets what pairs knew: every coupling and parked conflict. For a start from scratch (`start
 * --reset`, the demo's reset), where both sides' records are recreated: a coupling kept across it
 * would take a record missing on one side for a delete there, and propagate it.
 * @returns how many couplings and conflicts were removed.
 */
export async function forgetPairs(store: CouplingStore, pairs: readonly string[]): Promise<{ couplings: number; conflicts: number }> {
  let couplings = 0;
  let conflicts = 0;
  for (const pair of pairs) {
    for (const coupling of await store.list(pair)) if (await store.remove(pair, coupling.keyA)) couplings++;
    for (const conflict of await store.listConflicts(pair)) if (await store.removeConflict(pair, conflict.keyA)) conflicts++;
  }
  return { couplings, conflicts };
}
