import type { JobRunResult } from '../detect/job-run';
import type { Clock } from '../platform/clock';
import { errorMessage } from '../platform/errors';
import type { Logger } from '../telemetry/logger';
import { runResultBody } from './run-result';
import type { RunStatusRecord, RunStatusStore } from './run-status-store';

export interface RunTrackerOptions {
  store: RunStatusStore;
  clock: Clock;
  log: Logger;
  /** How long a request waits for its run before it is accepted (202), ms. */
  waitMs: number;
  /** How often an accepted run's row is renewed while it goes on, ms. Default 30 000. */
  heartbeatMs?: number;
}

/** The run ended within the wait, or was accepted and goes on (its end is written to the store). */
export type RunOrAccepted = { finished: true; run: JobRunResult } | { finished: false; accepted: RunStatusRecord };

/** State reported by `GET runs/{id}`: the stored one, or `Lost` for a run whose heartbeat stopped. */
export type ReportedState = RunStatusRecord['state'] | 'Lost';

/** Longest error text kept in the `Error` property (a property holds 32 K characters; the result is stored in parts). */
const MAX_ERROR_CHARS = 8_000;
/** Heartbeats a run may miss before it is reported `Lost`. */
const MISSED_HEARTBEATS = 3;

interface Accepted {
  record: RunStatusRecord;
  /** Writes in order: heartbeats never overwrite the final state. */
  writes: Promise<void>;
  ended: boolean;
  stopHeartbeat: () => void;
}

/**
 * Runs a job for an HTTP request and keeps the request within its wait: a run that ends in time
 * is returned as it is; a longer one is accepted with an id, goes on in this process, and has its
 * state written to the `runstatus` table (heartbeat while it runs, result at its end), so that a
 * status request on any instance can answer. Azure's front end drops a request after 230 s.
 */
export class RunTracker {
  private readonly accepted = new Map<string, Accepted>();
  private closed = false;

  constructor(private readonly options: RunTrackerOptions) {}

  get heartbeatMs(): number {
    return this.options.heartbeatMs ?? 30_000;
  }

  /** Starts the run and waits up to `waitMs` (default the option) for it. Rejects only if `start` throws. */
  async runOrAccept(job: string, start: () => Promise<JobRunResult>, waitMs = this.options.waitMs): Promise<RunOrAccepted> {
    const { clock, store, log } = this.options;
    const settled = start().then(
      (run) => ({ run }),
      (error: unknown) => ({ error }),
    );
    const stopWaiting = new AbortController();
    const timedOut = clock.sleep(waitMs, stopWaiting.signal).then(
      () => true,
      () => false,
    );
    const finish = async (): Promise<RunOrAccepted> => {
      const s = await settled;
      if ('error' in s) throw s.error;
      return { finished: true, run: s.run };
    };
    if (!(await Promise.race([settled.then(() => false), timedOut]))) {
      stopWaiting.abort();
      return finish();
    }
    const now = clock.now();
    const record: RunStatusRecord = { id: store.newId(now), job, state: 'Running', acceptedAt: now, heartbeatAt: now };
    try {
      await store.write(record);
    } catch (err) {
      // Without a row no one could poll for the result: keep the request open, as before.
      log.warn(`run of job "${job}" could not be accepted (${errorMessage(err)}); waiting for it to end instead`);
      return finish();
    }
    const entry: Accepted = { record, writes: Promise.resolve(), ended: false, stopHeartbeat: () => {} };
    this.accepted.set(record.id, entry);
    entry.stopHeartbeat = clock.every(this.heartbeatMs, () => {
      if (!entry.ended) this.write(entry, { ...entry.record, heartbeatAt: clock.now() });
    });
    void settled.then((s) => this.end(entry, s));
    void store.trim().catch((err) => log.warn(`old run status rows not trimmed: ${errorMessage(err)}`));
    log.info(`run of job "${job}" accepted as ${record.id}: it takes longer than ${waitMs} ms`, { job, runId: record.id });
    return { finished: false, accepted: record };
  }

  /** The stored record, with `Lost` for a `Running` one whose heartbeat is overdue; undefined when unknown. */
  async status(id: string): Promise<(Omit<RunStatusRecord, 'state'> & { state: ReportedState }) | undefined> {
    const record = await this.options.store.get(id);
    if (!record) return undefined;
    const overdue = this.options.clock.now().getTime() - record.heartbeatAt.getTime() > MISSED_HEARTBEATS * this.heartbeatMs;
    if (record.state !== 'Running' || !overdue) return record;
    return {
      ...record,
      state: 'Lost',
      error: `no heartbeat since ${record.heartbeatAt.toISOString()}: the instance running it stopped; the watermark moves only when a run ends, so run the job again`,
    };
  }

  /** Marks every accepted run still going as `Interrupted` (best effort) and stops the heartbeats. */
  async close(): Promise<void> {
    this.closed = true;
    const open = [...this.accepted.values()];
    for (const entry of open) {
      entry.stopHeartbeat();
      if (!entry.ended) {
        entry.ended = true;
        this.write(entry, { ...entry.record, state: 'Interrupted', endedAt: this.options.clock.now(), error: 'the host stopped before the run ended' });
      }
    }
    await Promise.all(open.map((entry) => entry.writes));
    this.accepted.clear();
  }

  private async end(entry: Accepted, settled: { run: JobRunResult } | { error: unknown }): Promise<void> {
    entry.stopHeartbeat();
    if (entry.ended || this.closed) return;
    entry.ended = true;
    const { clock } = this.options;
    const final: RunStatusRecord =
      'run' in settled
        ? { ...entry.record, state: settled.run.outcome, heartbeatAt: clock.now(), endedAt: settled.run.endedAt, result: runResultBody(settled.run) }
        : { ...entry.record, state: 'Failed', heartbeatAt: clock.now(), endedAt: clock.now(), error: errorMessage(settled.error).slice(0, MAX_ERROR_CHARS) };
    this.write(entry, final);
    await entry.writes;
    this.accepted.delete(entry.record.id);
  }

  private write(entry: Accepted, record: RunStatusRecord): void {
    entry.record = record;
    entry.writes = entry.writes
      .then(() => this.options.store.write(record))
      .catch((err) => this.options.log.warn(`status of run ${record.id} (job "${record.job}") not written: ${errorMessage(err)}`, { runId: record.id }));
  }
}
