import type { SeededRandom } from '../../convergence/support/seeded-random';
import { sleep } from '../../convergence/support/source-db';
import type { ChildOutcome, SyncRig } from '../../convergence/support/sync-rig';
import type { CrashPlan } from './fault-hooks';

/**
 * Where a round kills: `timer` at a random moment; `detection`, `before-watermark`, `processing`,
 * `before-mark` at an exact point (the host kills itself, see fault-hooks.ts); `mover` kills the dead-letter
 * mover between a resubmission and the removal of its original, then the host by timer.
 */
export type RoundKind = 'timer' | CrashPlan['point'] | 'mover';

export const ROUND_KINDS: readonly RoundKind[] = ['detection', 'before-watermark', 'processing', 'mover', 'timer'];
/** An outbox source: between the send and the mark instead of before the watermark write (which bounds nothing there). */
export const OUTBOX_ROUND_KINDS: readonly RoundKind[] = ['detection', 'before-mark', 'processing', 'mover', 'timer'];

export interface RoundRecord {
  round: number;
  kind: RoundKind;
  /** What killed the host: where it killed itself, or `timer after N ms`. */
  hostKilled: string;
  /** Mover rounds: messages parked when the mover started, and where it died (if it did). */
  mover?: { parked: number; killed?: string; exitCode: number | null };
}

/** How long a host may live before the timer kills it, when its own crash point was not reached. */
const MAX_ROUND_MS = 10_000;

/** Runs one round on a rig whose workload is running: start a host, kill it as `kind` says. */
export async function runRound(rig: SyncRig, round: number, kind: RoundKind, random: SeededRandom): Promise<RoundRecord> {
  const plan: CrashPlan | undefined =
    kind === 'detection' ? { point: kind, after: random.int(1, 60) }
    : kind === 'before-watermark' || kind === 'before-mark' ? { point: kind, after: random.int(1, 20) }
    : kind === 'processing' ? { point: kind, after: random.int(1, 60) }
    : undefined;
  const host = await rig.startHost(plan);
  let mover: RoundRecord['mover'];
  if (kind === 'mover') {
    mover = await moverRound(rig, random);
  }
  const timerMs = plan ? MAX_ROUND_MS : random.int(1_000, 6_000);
  const died = await Promise.race([host.child.exited.then(() => true), sleep(timerMs).then(() => false)]);
  if (!died) await host.child.kill();
  const outcome: ChildOutcome = await host.outcome();
  if (outcome.signal !== 'SIGKILL') throw new Error(`round ${round}: host exited with ${outcome.code ?? outcome.signal}, expected SIGKILL (see ${rig.dir})`);
  return { round, kind, hostKilled: outcome.crashedAt ?? `timer after ${timerMs} ms`, ...(mover ? { mover } : {}) };
}

/** Runs the mover on the parked items (if any) and kills it before one of its completions. */
async function moverRound(rig: SyncRig, random: SeededRandom): Promise<RoundRecord['mover']> {
  const parked = (await rig.parkedQueues()).reduce((n, q) => n + q.count, 0);
  const queue = rig.settings.queues.transitive.normal;
  const mover = rig.startMover(queue, parked > 0 ? random.int(1, parked) : undefined);
  const outcome = await mover.outcome();
  return { parked, killed: outcome.crashedAt, exitCode: outcome.code };
}
