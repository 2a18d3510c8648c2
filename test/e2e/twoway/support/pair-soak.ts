import { SeededRandom } from '../../convergence/support/seeded-random';
import { sleep } from '../../convergence/support/source-db';
import { listConflicts, resolveConflict } from './conflicts-cli';
import { PAIR, PAIR_JOBS, type SoakPolicy } from './pair-config';
import { editsOf, PairOracle, type RoundPlan, type Step } from './pair-plan';
import { PAIR_SCHEDULE_MS, type PairRig } from './pair-rig';
import { comparePairs, type PairMismatch } from './pair-verify';

/**
 * The two-way soak on one rig: rounds of seeded random edits on both sides while the host runs
 * (some rounds kill it with SIGKILL at a random moment and start it again), each round waited
 * out until both sides hold what the oracle expects; then a quiet period, the final checks, and
 * a window with no edits in which the pair jobs must send nothing (no ping-pong).
 */

export interface SoakSize {
  rounds: number;
  /** Records created on each side before the first round. */
  preload: number;
  /** Most records created per side and round. */
  creates: number;
  /** Records touched (edited, deleted, in conflict) per round. */
  edits: number;
  /** Share of rounds (after the first) that kill the host; round 2 always does. */
  killShare: number;
  /**
   * When in a round the kill comes, ms after its first edit: uniform in [min, max]. Up to ~300 ms
   * the host is killed while the edits are made and before it can have sent any of them (settle
   * margin 1 s); later, also in the middle of processing them.
   */
  killWindowMs: [number, number];
  /** How long a round may take to sync (a round that killed the host gets {@link LOCK_MS} more). */
  roundTimeoutMs: number;
  /** Delete-vs-edit conflicts the edit may win (see `PairOracle`). Default true. */
  restores?: boolean;
}

/**
 * The local bus's message lock (60 s): messages a killed host had received are delivered again
 * only when their lock expires, so a round that killed the host mid-processing needs that long.
 */
export const LOCK_MS = 60_000;

/** Messages allowed per edit: one for the edit, and up to two re-sends (a run cut short by a kill, an echo racing its coupling). */
export const MESSAGES_PER_EDIT = 3;

export interface SoakResult {
  seed: number;
  policy: SoakPolicy;
  rounds: number;
  edits: number;
  conflicts: number;
  deleteConflicts: number;
  resolved: number;
  kills: number;
  /** When each kill came, ms after its round's first edit. */
  killsAtMs: number[];
  records: number;
  /** Messages the pair jobs' recorded runs sent. */
  sent: number;
  /** Messages the bus accepted on work queues (also from runs a kill cut short). */
  busAccepted: number;
  /** Sent by the runs of the quiet window (no edits), and how many runs that was. */
  quietSent: number;
  quietRuns: number;
  conflictsLeft: number;
  /** Empty on success; else where it failed and the mismatches then. */
  failure?: { at: string; mismatches: PairMismatch[] };
  seconds: number;
}

export async function runSoak(rig: PairRig, policy: SoakPolicy, seed: number, size: SoakSize): Promise<SoakResult> {
  const started = Date.now();
  const random = new SeededRandom(seed);
  const oracle = new PairOracle(policy, size.restores ?? true);
  const result: SoakResult = {
    seed, policy, rounds: 0, edits: 0, conflicts: 0, deleteConflicts: 0, resolved: 0, kills: 0, killsAtMs: [], records: 0,
    sent: 0, busAccepted: 0, quietSent: 0, quietRuns: 0, conflictsLeft: 0, seconds: 0,
  };
  const mismatches = async () => comparePairs(oracle.expected, await rig.sides.a.readAll(), await rig.sides.b.readAll());
  const converged = async (at: string, killed = false): Promise<boolean> => {
    if (await rig.until(async () => (await mismatches()).length === 0, size.roundTimeoutMs + (killed ? LOCK_MS : 0))) return true;
    result.failure = { at, mismatches: await mismatches() };
    return false;
  };
  const finish = () => ({ ...result, records: oracle.expected.size, seconds: Math.round((Date.now() - started) / 1000) });

  await rig.startHost();
  const preload: RoundPlan = { groups: [], conflicts: 0, deleteConflicts: 0, resolutions: [] };
  const preloadRandom = random.fork();
  for (let i = 0; i < size.preload; i++) for (const side of ['a', 'b'] as const) oracle.planCreate(preloadRandom, preload, side);
  await applyGroups(rig, preload, preloadRandom);
  result.edits += editsOf(preload);
  if (!(await converged('preload'))) return finish();

  for (let round = 1; round <= size.rounds; round++) {
    const roundRandom = random.fork();
    const kill = round === 2 || (round > 1 && random.chance(size.killShare));
    const killAfterMs = random.int(...size.killWindowMs);
    const plan = oracle.planRound(roundRandom, { creates: size.creates, edits: size.edits });
    result.rounds = round;
    result.edits += editsOf(plan);
    result.conflicts += plan.conflicts;
    result.deleteConflicts += plan.deleteConflicts;
    const killing = kill ? killAndRestart(rig, killAfterMs) : Promise.resolve();
    if (kill) {
      result.kills++;
      result.killsAtMs.push(killAfterMs);
    }
    await applyGroups(rig, plan, roundRandom);
    await killing;
    if (plan.resolutions.length > 0) {
      const keys = new Set(plan.resolutions.map((r) => r.key));
      // A killed host's received messages come back when their lock expires: so may the conflicts.
      const parked = await rig.until(async () => (await listConflicts(rig, PAIR)).filter((c) => keys.has(c.keyA)).length === keys.size, size.roundTimeoutMs + (kill ? LOCK_MS : 0));
      if (!parked) {
        result.failure = { at: `round ${round}: the conflicts of ${[...keys].join(', ')} were not all parked`, mismatches: await mismatches() };
        return finish();
      }
      for (const r of plan.resolutions) await resolveConflict(rig, PAIR, r.key, r.take);
      result.resolved += plan.resolutions.length;
    }
    if (!(await converged(`round ${round}${kill ? ` (host killed ${killAfterMs} ms after its first edit)` : ''}`, kill))) return finish();
  }

  // Quiet: the last writes' echoes come back and must be dropped; nothing may move any more.
  await sleep(4 * PAIR_SCHEDULE_MS);
  const after = await mismatches();
  if (after.length > 0) {
    result.failure = { at: 'after the quiet period', mismatches: after };
    return finish();
  }
  result.conflictsLeft = (await listConflicts(rig, PAIR)).length;
  const total = await rig.sentByRuns();
  result.sent = total.sent;
  result.busAccepted = rig.busAccepted();

  // No ping-pong: several runs of both jobs with no edit anywhere send nothing.
  const since = new Date();
  const enough = async () => {
    const runs = (await rig.pairRuns()).filter((r) => r.startedAt >= since);
    return PAIR_JOBS.every((job) => runs.filter((r) => r.jobName === job).length >= 3);
  };
  if (!(await rig.until(enough, 30_000))) {
    result.failure = { at: 'quiet window: the pair jobs did not run three times each within 30 s', mismatches: [] };
    return finish();
  }
  const quiet = await rig.sentByRuns(since);
  result.quietSent = quiet.sent;
  result.quietRuns = quiet.runs;
  await rig.stopHost();
  return finish();
}

/** Runs the plan's groups in order, a short random pause between groups and none within one. */
async function applyGroups(rig: PairRig, plan: RoundPlan, random: SeededRandom): Promise<void> {
  for (const group of plan.groups) {
    for (const step of group) await applyStep(rig, step);
    await sleep(random.int(0, 120));
  }
}

function applyStep(rig: PairRig, step: Step): Promise<void> {
  const side = rig.sides[step.side];
  switch (step.kind) {
    case 'insert':
      return side.insert(step.key, step.values);
    case 'update':
      return side.update(step.key, step.field, step.value);
    case 'delete':
      return side.softDelete(step.key);
  }
}

async function killAndRestart(rig: PairRig, afterMs: number): Promise<void> {
  await sleep(afterMs);
  await rig.killHost();
  await rig.startHost();
}
