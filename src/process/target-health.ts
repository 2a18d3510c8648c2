/**
 * The outage mode of a target connection (docs/long-runs.md). A target that is down, has a
 * wrong credential or a missing table fails every group; without this, every message would use up
 * its attempts and end dead-lettered for one broken setting. After `threshold` consecutive group
 * failures the connection is in outage: its messages are not applied but rescheduled (no attempt
 * counted), one probe message goes through every `probeEveryMs`, and the first success ends it.
 * The failed groups must hold a few distinct messages, so that one poison message retried alone
 * does not pause its target.
 *
 * Per instance, in memory: each Functions instance (and the local host) finds an outage after its
 * own `threshold` failures, which costs a few groups more per instance than a shared table
 * entity, but reads nothing per batch and cannot leave a stale "down" behind a crashed instance.
 * Time is passed in, so the state machine is pure.
 */

export interface TargetHealthOptions {
  /** Consecutive failed groups (transient errors of the whole group) before an outage; a configuration error opens it at once. Default 5. */
  threshold?: number;
  /** How often one probe message is let through during an outage, ms. Default 30 000. */
  probeEveryMs?: number;
  /**
   * Distinct messages the failed groups must hold before an outage opens. Default 3: one poison
   * message retried alone, failing every time, is that message's problem, not the target's.
   */
  minMessages?: number;
  /**
   * How long a group that finds a probe of its connection in flight waits for the probe's result
   * before it is rescheduled, ms. Default 10 000. Waiting keeps the messages in hand: when the probe
   * ends the outage they are applied at once instead of a probe interval later, behind messages that
   * came after them (a contact before its account).
   */
  probeWaitMs?: number;
  /**
   * Longest time a message waits in its queue per deferral, ms. Default 300 000. A message is
   * deferred until the next probe while the outage is young, then for as long as the outage has
   * lasted, up to this: each waiting message comes back about log2(outage / probe interval) times
   * until the cap, not once per probe interval (a backlog of 100k cycling every 30 s through
   * receive, copy and complete keeps a host busy and costs broker operations for nothing).
   */
  maxDeferMs?: number;
}

export interface OutageState {
  readonly connection: string;
  readonly since: Date;
  /** When the next probe may go through. */
  readonly nextProbeAt: Date;
  /** The error that opened the outage (already scrubbed text). */
  readonly error: string;
  /** Failed groups since the outage began, probes included. */
  readonly failures: number;
}

/** A connection back from an outage: messages deferred during it are due until `until`. */
export interface RecoveryState {
  readonly connection: string;
  readonly until: Date;
}

/** What the status page reads of an outage mode (a {@link TargetHealth}, or a worker's reports of one). */
export interface TargetHealthView {
  /** The connections in outage now. */
  snapshot(): OutageState[];
  /** The connections back from an outage whose deferred messages are still to come. */
  recoveries(now: Date): RecoveryState[];
}

/** What may be applied to a connection now. */
export type Admission = { readonly kind: 'all' } | { readonly kind: 'probe' } | { readonly kind: 'none'; readonly until: Date };

/** What a recorded result changed, for logs and metrics. */
export type HealthChange = 'outageStarted' | 'outageEnded' | undefined;

export class TargetHealth implements TargetHealthView {
  private readonly failuresInRow = new Map<string, { groups: number; messages: Set<string> }>();
  private readonly outages = new Map<string, { since: Date; nextProbeAt: Date; error: string; failures: number }>();
  /** Per connection, the latest time a deferred message of it is due: until then it is recovering. */
  private readonly deferredUntil = new Map<string, Date>();
  /** The probe admitted per connection that has not reported yet, and how its waiters learn that it did. */
  private readonly probes = new Map<string, { reported: Promise<void>; report: () => void }>();

  constructor(private readonly options: TargetHealthOptions = {}) {}

  get threshold(): number {
    return this.options.threshold ?? 5;
  }

  get probeEveryMs(): number {
    return this.options.probeEveryMs ?? 30_000;
  }

  get probeWaitMs(): number {
    return this.options.probeWaitMs ?? 10_000;
  }

  get maxDeferMs(): number {
    return this.options.maxDeferMs ?? 300_000;
  }

  /**
   * Until when a message of `connection` that may not go to the target now waits: the next probe
   * time, or later the older the outage is (see {@link TargetHealthOptions.maxDeferMs}). Noted, so
   * that {@link recoveringUntil} knows when the last deferred message is back.
   */
  deferUntil(connection: string, now: Date): Date {
    const outage = this.outages.get(connection);
    const age = outage ? now.getTime() - outage.since.getTime() : 0;
    const nextProbe = outage?.nextProbeAt.getTime() ?? now.getTime() + this.probeEveryMs;
    const until = new Date(Math.max(nextProbe, now.getTime() + Math.min(age, this.maxDeferMs)));
    const latest = this.deferredUntil.get(connection);
    if (!latest || latest.getTime() < until.getTime()) this.deferredUntil.set(connection, until);
    return until;
  }

  /**
   * After an outage, until when messages this instance deferred during it are still to come back
   * (undefined once they all are, or when none was deferred). A record that misses its parent in
   * this time waits for it without using up its retries: the parent may be one of those messages.
   */
  recoveringUntil(connection: string, now: Date): Date | undefined {
    if (this.outages.has(connection)) return undefined;
    const until = this.deferredUntil.get(connection);
    if (until && until.getTime() > now.getTime()) return until;
    this.deferredUntil.delete(connection);
    return undefined;
  }

  /** The connections back from an outage whose deferred messages are still to come (status page). */
  recoveries(now: Date): RecoveryState[] {
    return [...this.deferredUntil.keys()].flatMap((connection) => {
      const until = this.recoveringUntil(connection, now);
      return until ? [{ connection, until }] : [];
    });
  }

  /** Whether a group for `connection` may go to the target now: all of it, one probe message, or none until a time. */
  admit(connection: string, now: Date): Admission {
    const outage = this.outages.get(connection);
    if (!outage) return { kind: 'all' };
    if (now.getTime() >= outage.nextProbeAt.getTime()) {
      // The next probe is due one interval later even if this one never reports (its instance died).
      outage.nextProbeAt = new Date(now.getTime() + this.probeEveryMs);
      this.probeEnded(connection);
      let report = () => {};
      const reported = new Promise<void>((resolve) => (report = resolve));
      this.probes.set(connection, { reported, report });
      return { kind: 'probe' };
    }
    return { kind: 'none', until: outage.nextProbeAt };
  }

  /** Resolves when the probe admitted for `connection` reports (or {@link probeEnded}); undefined when none is in flight. */
  probeInFlight(connection: string): Promise<void> | undefined {
    return this.probes.get(connection)?.reported;
  }

  /**
   * The probe of `connection` is over, whether or not it reported a result (it may have failed on
   * its own data). With `probe` ({@link probeInFlight} when it was admitted), only if that probe is
   * still the one in flight: a probe that outlived its interval must not end its successor's wait.
   */
  probeEnded(connection: string, probe?: Promise<void>): void {
    const entry = this.probes.get(connection);
    if (!entry || (probe !== undefined && entry.reported !== probe)) return;
    entry.report();
    this.probes.delete(connection);
  }

  /** A group (or probe) reached the target and at least one message of it was applied or failed on its own. */
  succeeded(connection: string): HealthChange {
    this.failuresInRow.delete(connection);
    this.probeEnded(connection);
    return this.outages.delete(connection) ? 'outageEnded' : undefined;
  }

  /** Whether `connection` is in outage now. */
  inOutage(connection: string): boolean {
    return this.outages.has(connection);
  }

  /**
   * A group (or probe) of these records (any stable ids, e.g. job and source key) failed as a whole
   * with a transient or configuration error. A configuration error (`kind: 'config'`: a missing
   * table, column, entity set or property, a file that cannot be opened, a rejected credential)
   * opens the outage at its first group: it is no message's fault, every message of the target
   * fails alike until someone fixes it, and each retry before the outage would use up an attempt.
   */
  failed(connection: string, now: Date, error: string, messageIds: readonly string[] = [], kind: 'transient' | 'config' = 'transient'): HealthChange {
    const outage = this.outages.get(connection);
    this.probeEnded(connection);
    if (outage) {
      outage.failures++;
      outage.nextProbeAt = new Date(now.getTime() + this.probeEveryMs);
      return undefined;
    }
    const streak = this.failuresInRow.get(connection) ?? { groups: 0, messages: new Set<string>() };
    streak.groups++;
    const minMessages = this.options.minMessages ?? 3;
    for (const id of messageIds) if (streak.messages.size < minMessages) streak.messages.add(id);
    this.failuresInRow.set(connection, streak);
    if (kind !== 'config' && (streak.groups < this.threshold || streak.messages.size < minMessages)) return undefined;
    this.failuresInRow.delete(connection);
    this.outages.set(connection, { since: now, nextProbeAt: new Date(now.getTime() + this.probeEveryMs), error, failures: streak.groups });
    return 'outageStarted';
  }

  /** The connections in outage now (status page, `/api/status`). */
  snapshot(): OutageState[] {
    return [...this.outages].map(([connection, o]) => ({ connection, since: o.since, nextProbeAt: o.nextProbeAt, error: o.error, failures: o.failures }));
  }
}
