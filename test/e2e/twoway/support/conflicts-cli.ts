import type { PairSideName } from '../../../../src/model/pair';
import type { PairRig } from './pair-rig';

/**
 * The operator's side of `manual` conflicts, through the real CLI (a child process on the rig's
 * storage): `highwater conflicts list --pair <pair> --json` and `highwater conflicts resolve
 * <pair> <keyA> --take a|b --config <dir>` (the local host runs the config folder; the tables hold none).
 */

/** The a keys of the pair's parked conflicts, with whether each is resolved already. */
export async function listConflicts(rig: PairRig, pair: string): Promise<Array<{ keyA: string; resolved: boolean }>> {
  const { code, output } = await rig.cli(['conflicts', 'list', '--pair', pair, '--json']);
  if (code !== 0) throw new Error(`highwater conflicts list --pair ${pair} --json exited with ${code}:\n${output.slice(-2000)}`);
  const json = output.slice(output.indexOf('['), output.lastIndexOf(']') + 1);
  const rows = JSON.parse(json || '[]') as Array<{ keyA: string; resolution?: string | null }>;
  return rows.map((r) => ({ keyA: r.keyA, resolved: r.resolution !== undefined && r.resolution !== null }));
}

/** Decides a parked conflict: `take`'s values win the record's conflicting fields. */
export async function resolveConflict(rig: PairRig, pair: string, keyA: string, take: PairSideName): Promise<void> {
  const { code, output } = await rig.cli(['conflicts', 'resolve', pair, keyA, '--take', take, '--config', rig.dir]);
  if (code !== 0) throw new Error(`highwater conflicts resolve ${pair} ${keyA} --take ${take} exited with ${code}:\n${output.slice(-2000)}`);
}
