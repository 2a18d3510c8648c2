import type { Logger } from '../telemetry/logger';
import type { TableStore } from '../storage/table-store';
import { errorMessage } from '../platform/errors';
import { safeErrorText } from '../bus/message-properties';

/** Table of recoveries from target outages: partition = target connection, row = instance id, `Until` = when the last message that instance deferred is due. */
export const TARGET_RECOVERIES_TABLE = 'targetrecoveries';

/** What this instance wrote of a connection (`covered`: every deferral up to it) and the latest due time it deferred to (`wanted`). */
interface Published {
  covered: number;
  wanted: number;
  writing: boolean;
}

export interface SharedRecoveriesOptions {
  /** How long one read of every instance's recoveries of a connection is reused, ms. Default 10 000. */
  readEveryMs?: number;
  /**
   * The due time written is this much later than the latest deferral, ms, so that the deferrals of
   * the next few seconds need no write of their own. Default 5 000: the deferrals of a backlog push
   * the due time on with every batch, and a write per batch would cost a table request each; a
   * child may wait this much longer than its parent needs.
   */
  publishStepMs?: number;
  /** Rows whose due time passed this long ago are deleted when read (instances that went away), ms. Default 3 600 000. */
  keepPastMs?: number;
}

/**
 * The outage mode's recovery, shared between instances (on Azure, every Functions instance runs
 * its own {@link TargetHealth}). After an outage, a record missing its parent waits for the
 * messages deferred during the outage instead of using up its transitive retries — but an
 * instance knows only the messages it deferred itself, and on a scaled-out app the parent was
 * often deferred by another: its child, met here, would be parked (`sbqtransitive*`, which has no
 * trigger) while its parent comes back minutes later. Each instance therefore writes until when
 * its deferred messages of a connection are due, and one that meets a missing parent reads the
 * others'.
 *
 * Writes go out in the background ({@link note} is not awaited by the batch) and a failed write
 * is logged and tried again with the next deferral: a missing row only means a child may be
 * parked as without this. Reads happen only when a group met a missing parent and this instance
 * knows of no recovery, at most once per `readEveryMs` per connection; a failed read counts as no
 * recovery.
 */
export class SharedRecoveries {
  private readonly published = new Map<string, Published>();
  private readonly read = new Map<string, { at: number; until: number }>();
  private readonly loading = new Map<string, Promise<number>>();
  private readonly writes = new Set<Promise<void>>();

  constructor(
    private readonly table: TableStore,
    private readonly instanceId: string,
    private readonly log: Logger,
    private readonly options: SharedRecoveriesOptions = {},
  ) {}

  /** This instance deferred messages of `connection` until `until`: written unless what was written covers it already. */
  note(connection: string, until: Date): void {
    const state = this.published.get(connection) ?? { covered: 0, writing: false, wanted: 0 };
    this.published.set(connection, state);
    state.wanted = Math.max(state.wanted, until.getTime());
    this.writeIfDue(connection, state);
  }

  private writeIfDue(connection: string, state: Published): void {
    if (state.writing || state.wanted <= state.covered) return;
    const write = this.write(connection, state).finally(() => this.writes.delete(write));
    this.writes.add(write);
  }

  /** Resolves when the writes started so far, and those they started, are done (tests, shutdown). */
  async flushed(): Promise<void> {
    while (this.writes.size > 0) await Promise.all(this.writes);
  }

  private async write(connection: string, state: Published): Promise<void> {
    state.writing = true;
    const until = state.wanted + (this.options.publishStepMs ?? 5_000);
    try {
      await this.table.upsert({ partitionKey: connection, rowKey: this.instanceId, properties: { Until: new Date(until) } });
      state.covered = until;
      state.writing = false;
      // Deferrals noted while this write was out: the last of them must reach the table too.
      this.writeIfDue(connection, state);
    } catch (err) {
      this.log.warn(`could not share the recovery of target connection "${connection}" with other instances: ${safeErrorText(errorMessage(err))}`);
      state.writing = false;
    }
  }

  /** The latest time a message another instance deferred for `connection` is due, when that is after `now`. */
  async until(connection: string, now: Date): Promise<Date | undefined> {
    const known = this.read.get(connection);
    let until: number;
    if (known && now.getTime() - known.at < (this.options.readEveryMs ?? 10_000)) until = known.until;
    else {
      // Groups of several queues meet the same missing parents at once: they share one read.
      let loading = this.loading.get(connection);
      if (!loading) {
        loading = this.load(connection, now).finally(() => this.loading.delete(connection));
        this.loading.set(connection, loading);
      }
      until = await loading;
      this.read.set(connection, { at: now.getTime(), until });
    }
    return until > now.getTime() ? new Date(until) : undefined;
  }

  private async load(connection: string, now: Date): Promise<number> {
    try {
      const rows = await this.table.queryPartition(connection);
      let latest = 0;
      for (const row of rows) {
        // This instance's own deferrals are known exactly in its TargetHealth.
        if (row.rowKey === this.instanceId) continue;
        const until = row.properties.Until;
        const at = until instanceof Date ? until.getTime() : NaN;
        if (Number.isFinite(at) && at > latest) latest = at;
        if (!(at > now.getTime() - (this.options.keepPastMs ?? 3_600_000))) void this.table.delete(connection, row.rowKey).catch(() => undefined);
      }
      return latest;
    } catch (err) {
      this.log.warn(`could not read other instances' recoveries of target connection "${connection}": ${safeErrorText(errorMessage(err))}`);
      return 0;
    }
  }
}
