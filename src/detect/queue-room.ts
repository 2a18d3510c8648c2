import type { Clock } from '../platform/clock';
import { errorMessage } from '../platform/errors';

/**
 * Backpressure at detection, so that one job's flood (a first load of 100k rows) cannot starve the
 * other jobs of its priority queue. Two things hold a small job's change back behind a flood:
 * processors take a queue's messages oldest first, so a change sent behind 100k messages waits
 * for all of them; and the timer runs the due jobs one after the other, so a job due while the
 * flood's run reads waits for that run to end, however fast processing keeps up.
 *
 * So a scheduled run stops at a page boundary once it has sent `limit` messages (its turn), or
 * earlier once its queue already holds `limit` messages; it saves its resume cursor (as at the
 * time budget) and ends. The timer's pass goes on to the next due job, then waits until the
 * queue is down to half the limit and runs the jobs due then, the stopped one resuming after its
 * cursor. A job's messages still leave through one queue in the order its source was read, so
 * no older change of a record can overtake a newer one.
 *
 * The depth is what the bus counts as active in the queue: a query on the local bus, the
 * administration API's runtime properties on Service Bus — one call per look, hence the steps
 * below rather than a look per page.
 */

/** A run sends at least this share of the limit between two looks at its queue (and before the first). */
const LOOK_EVERY_SHARE = 4;

/** Messages a run sends between two looks at its queue's depth; also what every run may send before its first look. */
export function lookStep(limit: number): number {
  return Math.max(1, Math.ceil(limit / LOOK_EVERY_SHARE));
}

/** Depth at or below which runs stopped by a full queue go on: half the limit, so the processors never run dry while detection resumes. */
export function resumeDepth(limit: number): number {
  return Math.floor(limit / 2);
}

/** How often the timer's pass looks at the held queues while it waits for room, ms. */
const ROOM_POLL_MS = 250;

/**
 * Longest wait for room after a pass, ms: a queue that does not drain (processors stopped, a
 * target in outage whose messages wait as scheduled copies do not count) ends the tick instead
 * of holding it; the next tick resumes the jobs, which are still due.
 */
const ROOM_MAX_WAIT_MS = 30_000;

/** Reads a queue's active message count. @throws what the bus throws (`BusError`). */
export type QueueDepth = (queue: string) => Promise<number>;

/**
 * One run's turn on its queue. A depth that cannot be read (a missing permission, the bus
 * unreachable) never fails the run: it warns once and the run sends on without backpressure
 * (its turn included: the timer's pass could not tell when the queue has room again).
 */
export class QueueRoom {
  private sentAtLastLook = 0;
  private blind = false;

  constructor(
    private readonly queue: string,
    /** Most messages in the queue, and most a run sends in one turn; 0 = no limit. */
    private readonly limit: number,
    private readonly depth: QueueDepth,
    private readonly warn: (message: string) => void,
  ) {}

  /**
   * After a page, with the messages the run has sent so far (accepted by the bus): whether the
   * run should stop, because it has sent `limit` messages (its turn is over) or its queue holds
   * `limit` messages or more. Looks at the queue only once the run sent {@link lookStep} more
   * since its last look (or its turn is over), so every run makes progress, however full the
   * queue is when it starts.
   */
  async full(sent: number): Promise<boolean> {
    if (this.limit <= 0 || this.blind) return false;
    if (sent < this.limit && sent - this.sentAtLastLook < lookStep(this.limit)) return false;
    this.sentAtLastLook = sent;
    let depth: number;
    try {
      // Read even when the turn is over: a turn ends only where the pass can tell when to go on.
      depth = await this.depth(this.queue);
    } catch (err) {
      this.blind = true;
      this.warn(`queue ${this.queue}: depth not readable, this run sends without backpressure: ${errorMessage(err)}`);
      return false;
    }
    return sent >= this.limit || depth >= this.limit;
  }
}

/**
 * Waits until every queue in `queues` holds at most {@link resumeDepth} active messages.
 * @returns true when they do; false at `deadline`, after `maxWaitMs`, or when a depth cannot
 *   be read (warned): the caller then ends its pass, and the next tick resumes.
 */
export async function waitForRoom(
  queues: readonly string[],
  limit: number,
  depth: QueueDepth,
  clock: Pick<Clock, 'now' | 'sleep'>,
  warn: (message: string) => void,
  options: { deadline?: Date; maxWaitMs?: number; pollMs?: number } = {},
): Promise<boolean> {
  const { maxWaitMs = ROOM_MAX_WAIT_MS, pollMs = ROOM_POLL_MS } = options;
  const giveUpAt = Math.min(clock.now().getTime() + maxWaitMs, options.deadline?.getTime() ?? Infinity);
  const room = resumeDepth(limit);
  let waiting = [...new Set(queues)];
  for (;;) {
    try {
      const depths = await Promise.all(waiting.map((queue) => depth(queue)));
      waiting = waiting.filter((_, i) => depths[i] > room);
    } catch (err) {
      warn(`queue depth not readable while waiting for room: ${errorMessage(err)}; the held jobs resume on the next tick`);
      return false;
    }
    if (waiting.length === 0) return true;
    const left = giveUpAt - clock.now().getTime();
    if (left <= 0) return false;
    await clock.sleep(Math.min(pollMs, left));
  }
}
