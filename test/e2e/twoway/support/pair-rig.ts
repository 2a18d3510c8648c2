import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RUNS_TABLE, RunLogStore } from '../../../../src/detect/run-log-store';
import type { JobRunResult } from '../../../../src/detect/job-run';
import { totalSent } from '../../../../src/detect/job-run';
import type { Settings } from '../../../../src/platform/settings';
import { openTableStorage } from '../../../../src/storage/table-client-factory';
import type { TableStorage } from '../../../../src/storage/table-store';
import type { TestAzurite } from '../../../support/azurite';
import { TsChild } from '../../convergence/support/child-process';
import { hostChildEnv, hostStorage, startHostChild } from '../../convergence/support/local-host';
import { sleep } from '../../convergence/support/source-db';
import { PAIR_JOBS, type SoakPolicy, writePairConfig } from './pair-config';
import { PostgresSide, SIDE_A, SIDE_B, SqliteSide, type SideDb, type SideName } from './pair-sides';

export const PG_URL_SETTING = 'HIGHWATER_TEST_PG_URL';

/** Both jobs and the host's GetChanges run every second. */
const PAIR_SCHEDULE = '* * * * * *';
export const PAIR_SCHEDULE_MS = 1000;

export type SideBKind = 'sqlite' | 'postgres';

/**
 * One two-way system in a temp folder: side a (SQLite `a.db`), side b (SQLite `b.db`, or a
 * PostgreSQL schema), the config folder with the pair, the table storage (the rig's own, so it
 * outlives killed hosts) and the local host (`highwater start`) as a child process that the
 * harness kills (SIGKILL) and restarts. The CLI (`highwater conflicts …`) runs as a child
 * process too, on the same storage and data folder.
 */
export class PairRig {
  private children = 0;
  private host?: TsChild;
  private readonly started = new Set<TsChild>();
  private storage?: TableStorage;
  /** Runs of the pair jobs seen so far, by job and start: the run log keeps a bounded number per job. */
  private readonly runs = new Map<string, JobRunResult>();

  private constructor(
    readonly dir: string,
    readonly sides: Record<SideName, SideDb>,
    readonly settings: Settings,
    private readonly azurite: TestAzurite | undefined,
  ) {}

  static async create(options: { b: SideBKind; policy: SoakPolicy; label: string }): Promise<PairRig> {
    const dir = mkdtempSync(path.join(os.tmpdir(), `hw-${options.label}-`));
    const { settings, azurite } = await hostStorage(dir, PAIR_SCHEDULE);
    let a: SideDb | undefined;
    try {
      a = new SqliteSide('a', SIDE_A, path.join(dir, 'a.db'));
      const url = process.env[PG_URL_SETTING];
      if (options.b === 'postgres' && !url) throw new Error(`${PG_URL_SETTING} is not set`);
      const schema = `hw_${options.label.replace(/\W/g, '_')}_${process.pid}`;
      const b = options.b === 'postgres' ? await PostgresSide.create('b', SIDE_B, url as string, schema) : new SqliteSide('b', SIDE_B, path.join(dir, 'b.db'));
      writePairConfig(dir, { policy: options.policy, schedule: PAIR_SCHEDULE, ...(options.b === 'postgres' ? { postgres: { schema, urlSetting: PG_URL_SETTING } } : {}) });
      return new PairRig(dir, { a, b }, settings, azurite);
    } catch (err) {
      await a?.close().catch(() => undefined);
      await azurite?.stop();
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  get sendLog(): string {
    return path.join(this.dir, 'sends.log');
  }

  /** Starts the host and waits until it serves. */
  async startHost(): Promise<void> {
    const env = hostChildEnv(this.settings, this.sendLog, {});
    this.host = this.track(await startHostChild(this.dir, env, path.join(this.dir, `host-${++this.children}.log`)));
  }

  /** SIGKILL: the host dies wherever it is (in a run, between a write and its coupling, …). */
  async killHost(): Promise<void> {
    await this.host?.kill();
    this.host = undefined;
  }

  /** A graceful stop (SIGTERM). */
  async stopHost(): Promise<void> {
    await this.host?.stop();
    this.host = undefined;
  }

  /** Runs `highwater <args>` as the CLI does, on the rig's storage and data folder; its output and exit code. */
  async cli(args: string[]): Promise<{ code: number | null; output: string }> {
    const log = path.join(this.dir, `cli-${++this.children}.log`);
    const child = this.track(TsChild.start('src/cli/main.ts', args, hostChildEnv(this.settings, this.sendLog, {}), log));
    const timer = setTimeout(() => void child.kill(), 60_000);
    try {
      const { code } = await child.exited;
      // The log stream takes the last chunks just after the exit.
      await sleep(50);
      return { code, output: existsSync(log) ? readFileSync(log, 'utf8') : '' };
    } finally {
      clearTimeout(timer);
    }
  }

  private track(child: TsChild): TsChild {
    this.started.add(child);
    void child.exited.then(() => this.started.delete(child));
    return child;
  }

  /** Every run of the pair jobs recorded so far (kept across reads: the run log drops old runs). */
  async pairRuns(): Promise<JobRunResult[]> {
    this.storage ??= await openTableStorage(this.settings);
    const log = new RunLogStore(await this.storage.table(RUNS_TABLE));
    for (const job of PAIR_JOBS) {
      for (const run of await log.latest(job, 1000)) this.runs.set(`${job}\u0000${run.startedAt.toISOString()}`, run);
    }
    return [...this.runs.values()];
  }

  /** Messages the pair jobs' recorded runs sent (started at or after `since`, when given). */
  async sentByRuns(since?: Date): Promise<{ sent: number; runs: number }> {
    const runs = (await this.pairRuns()).filter((r) => since === undefined || r.startedAt >= since);
    return { sent: runs.reduce((n, r) => n + totalSent(r), 0), runs: runs.length };
  }

  /** Messages the bus accepted on work queues (the hosts' send log): also those of runs a kill cut short. */
  busAccepted(): number {
    if (!existsSync(this.sendLog)) return 0;
    const work = new Set(Object.values(this.settings.queues.work));
    return readFileSync(this.sendLog, 'utf8').split('\n').filter((line) => work.has(line.split('\t')[0])).length;
  }

  /** Polls `probe` every 250 ms until it holds; false after `timeoutMs`. */
  async until(probe: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await probe()) return true;
      if (Date.now() > deadline) return false;
      await sleep(250);
    }
  }

  /** Kills what still runs; keeps the folder (logs, databases) when `keep` is set, for a failed run. */
  async close(keep = false): Promise<void> {
    await Promise.all([...this.started].map((child) => child.kill()));
    await this.storage?.close().catch(() => undefined);
    await this.sides.a.close().catch(() => undefined);
    // A PostgreSQL side is dropped even so (its rows are in the failure message).
    await this.sides.b.close().catch(() => undefined);
    await this.azurite?.stop();
    if (!keep) rmSync(this.dir, { recursive: true, force: true });
  }
}
