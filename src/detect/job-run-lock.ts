/**
 * Runs of one job never overlap within a process. Twenty simultaneous ExecuteJob calls used to
 * run twenty times at once, each writing the watermark it had reached when it finished: 11 of
 * them moved it backwards (last writer wins). Between processes that stays the spec's rule (a
 * stale writer only causes repeats); within one process a run waits for the one before it.
 *
 * Callers that arrive while a run is going share the run queued behind it when they ask for the
 * same kind of run (`key`): it starts after all of them called, so it reads every change any of
 * them asked for, and the job runs at most twice however many calls pile up.
 */
export class JobRunLock<T> {
  private readonly jobs = new Map<string, { tail: Promise<void>; next: Queued<T> }>();

  /** Whether a run of the job is going or waiting in this process. */
  isBusy(job: string): boolean {
    return this.jobs.has(job);
  }

  /** Runs `run` once no other run of `job` is going, or joins the queued run of the same `key`. */
  exclusive(job: string, key: string, run: () => Promise<T>): Promise<T> {
    const entry = this.jobs.get(job);
    if (entry && entry.next.key === key && !entry.next.started) return entry.next.result;
    const previous = entry?.tail ?? Promise.resolve();
    const next: Queued<T> = { key, started: false, result: undefined as unknown as Promise<T> };
    next.result = previous.then(() => {
      next.started = true;
      return run();
    });
    const tail = next.result.then(ignore, ignore);
    this.jobs.set(job, { tail, next });
    void tail.then(() => {
      if (this.jobs.get(job)?.tail === tail) this.jobs.delete(job);
    });
    return next.result;
  }
}

interface Queued<T> {
  key: string;
  /** Once started, later callers queue behind it instead of joining it. */
  started: boolean;
  result: Promise<T>;
}

const ignore = (): void => undefined;
