import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createBus } from '../../../../src/bus/create-bus';
import type { MessageBus } from '../../../../src/bus/message-bus';
import type { Settings } from '../../../../src/platform/settings';
import { WatermarkService } from '../../../../src/detect/watermark-service';
import { openTableStorage } from '../../../../src/storage/table-client-factory';
import type { TableStorage } from '../../../../src/storage/table-store';
import type { TestAzurite } from '../../../support/azurite';
import { CRASH_MARKER_ENV, FAULT_ENV, type CrashPlan } from '../../crash/support/fault-hooks';
import { TsChild, type ChildExit } from './child-process';
import { hostChildEnv, hostStorage, startHostChild } from './local-host';
import { OdataSourceDb } from './odata-source-db';
import { PostgresSourceDb } from './postgres-source-db';
import { MysqlSourceDb } from './mysql-source-db';
import { MysqlTargetDb } from './mysql-target-db';
import { sleep, type SourceDb } from './source-db';
import { SqliteSourceDb } from './sqlite-source-db';
import { createTargetDatabase, JOBS, type SyncConfigOptions, writeSyncConfig, type SourceKind } from './sync-config';
import { readSqliteTarget, verifyConvergence, type Verdict } from './verify';

export const PG_URL_SETTING = 'HIGHWATER_TEST_PG_URL';
export const MYSQL_URL_SETTING = 'HIGHWATER_TEST_MYSQL_URL';
/** The env var the host reads the MySQL password from (set from the URL's; children inherit it). */
const MYSQL_PASSWORD_SETTING = 'HIGHWATER_TEST_MYSQL_PASSWORD';

export interface SyncRigOptions {
  source: SourceKind;
  /** Names the temp folder and the PostgreSQL schema. */
  label: string;
  /**
   * Seconds re-read behind the watermark. Default 0: the settled horizon keeps late commits
   * (PostgreSQL `now()`) and second-resolution stamps from being passed; only stamps an
   * application takes from its own clock long before it commits (`sourceStamps: 'workload'` with
   * late writes) need one.
   */
  lookbackSeconds?: number;
  /** SQLite only: who stamps changes (see SqliteSourceDb). Default 'database' (whole seconds, SQLite's clock). */
  sourceStamps?: 'workload' | 'database';
  /** Rows per source page. Default 50. */
  pageSize?: number;
  /**
   * Jobs' settle margin. Default: the source type's (1 s for SQL; 5 s for OData, which the harness
   * sets to 1 s to keep CI short: its server runs on this machine, so there is no clock skew).
   */
  settleSeconds?: number;
  /** Categories and items jobs: `skipOutdatedMessages`. Default true. */
  skipOutdatedMessages?: boolean;
  /** Items job: retries before an item whose category is missing is parked. Default 2 (4 s, 9 s). */
  transitiveRetries?: number;
  /** Where the changes go. Default 'sqlite' (a file); 'mysql': a database on `HIGHWATER_TEST_MYSQL_URL`. */
  target?: 'sqlite' | 'mysql';
}

/** What a child run ended with: how it exited and, when it killed itself, where. */
export interface ChildOutcome extends ChildExit {
  crashedAt?: string;
}

/** Every second: GetChanges and each job. "Two schedule periods" are two seconds. */
const SCHEDULE = '* * * * * *';
const SCHEDULE_PERIOD_MS = 1000;

/**
 * One synced system in a temp folder: the source (SQLite file, PostgreSQL schema, MySQL database), the SQLite
 * target, the configuration, an in-memory Azurite (in this process, so it outlives killed hosts)
 * and the local bus file. Hosts and movers run as child processes on it.
 */
export class SyncRig {
  private children = 0;
  /** Every host and mover child started on this rig: {@link close} kills those still running. */
  private readonly started = new Set<TsChild>();
  private bus?: MessageBus;
  private storage?: TableStorage;

  private constructor(
    readonly dir: string,
    readonly db: SourceDb,
    readonly settings: Settings,
    private readonly azurite: TestAzurite | undefined,
    /** The MariaDB/MySQL target, when the rig writes to one instead of `target.db`. */
    readonly mysqlTarget?: MysqlTargetDb,
  ) {}

  static async create(options: SyncRigOptions): Promise<SyncRig> {
    const dir = mkdtempSync(path.join(os.tmpdir(), `hw-${options.label}-`));
    const { settings, azurite } = await hostStorage(dir, SCHEDULE);
    let db: SourceDb | undefined;
    let mysqlTarget: MysqlTargetDb | undefined;
    try {
      const schema = `hw_${options.label.replace(/\W/g, '_')}_${process.pid}`;
      const url = process.env[PG_URL_SETTING];
      if (options.source.startsWith('postgres') && !url) throw new Error(`${PG_URL_SETTING} is not set`);
      const mysqlUrl = process.env[MYSQL_URL_SETTING];
      const mysqlSource = options.source === 'mysql' || options.source === 'mysql-outbox';
      if (mysqlSource && !mysqlUrl) throw new Error(`${MYSQL_URL_SETTING} is not set`);
      db = mysqlSource ? await MysqlSourceDb.create(mysqlUrl as string, schema, options.source === 'mysql-outbox') : await openSource(options, dir, url, schema);
      createTargetDatabase(path.join(dir, 'target.db'));
      if (options.target === 'mysql' && !mysqlUrl) throw new Error(`${MYSQL_URL_SETTING} is not set`);
      mysqlTarget = options.target === 'mysql' ? await MysqlTargetDb.create(mysqlUrl as string, `${schema}_t`) : undefined;
      writeSyncConfig(dir, {
        source: options.source,
        pgSchema: schema,
        pgUrlSetting: PG_URL_SETTING,
        mysql: mysqlSource ? mysqlConnection(process.env[MYSQL_URL_SETTING] as string, schema) : undefined,
        mysqlTarget: mysqlTarget ? mysqlConnection(process.env[MYSQL_URL_SETTING] as string, mysqlTarget.database) : undefined,
        serviceUrl: db instanceof OdataSourceDb ? db.serviceUrl : undefined,
        settleSeconds: options.settleSeconds ?? (options.source === 'odata' ? 1 : undefined),
        lookbackSeconds: options.lookbackSeconds ?? 0,
        pageSize: options.pageSize ?? 50,
        schedule: SCHEDULE,
        transitiveRetries: options.transitiveRetries ?? 2,
        skipOutdatedMessages: options.skipOutdatedMessages ?? true,
      });
      return new SyncRig(dir, db, settings, azurite, mysqlTarget);
    } catch (err) {
      // An OData source listens on a port: left open, it would keep the test process alive.
      await db?.close().catch(() => undefined);
      await mysqlTarget?.drop().catch(() => undefined);
      await azurite?.stop();
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  get sendLog(): string {
    return path.join(this.dir, 'sends.log');
  }

  private childEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    return hostChildEnv(this.settings, this.sendLog, extra);
  }

  /** Starts `highwater start` on the rig (optionally set to kill itself) and waits until it serves. */
  async startHost(crash?: CrashPlan): Promise<{ child: TsChild; outcome: () => Promise<ChildOutcome> }> {
    const n = ++this.children;
    const marker = path.join(this.dir, `crash-${n}.txt`);
    const env = this.childEnv({ [CRASH_MARKER_ENV]: marker, ...(crash ? { [FAULT_ENV]: JSON.stringify(crash) } : {}) });
    const child = this.track(await startHostChild(this.dir, env, path.join(this.dir, `host-${n}.log`)));
    return { child, outcome: async () => ({ ...(await child.exited), crashedAt: readMarker(marker) }) };
  }

  /**
   * Runs the dead-letter mover with `--apply` on `queue` as a child process; with `killAfter` it
   * kills itself before its N-th completion (resubmission sent, original not yet removed).
   * `options.args` replaces `--apply` (e.g. `--dead-letter` for a dry run of a dead-letter subqueue).
   */
  startMover(queue: string, killAfter?: number, options: { args?: string[] } = {}): { child: TsChild; outcome: () => Promise<ChildOutcome>; log: string } {
    const n = ++this.children;
    const marker = path.join(this.dir, `crash-${n}.txt`);
    const env = this.childEnv({ [CRASH_MARKER_ENV]: marker, ...(killAfter ? { HW_E2E_MOVER_KILL_AFTER: String(killAfter) } : {}) });
    const args = ['--queue', queue, ...(options.args ?? ['--apply']), '--data-dir', this.settings.dataDir];
    const log = path.join(this.dir, `mover-${n}.log`);
    const child = this.track(TsChild.start('test/e2e/crash/support/mover-child.ts', args, env, log));
    return { child, outcome: async () => ({ ...(await child.exited), crashedAt: readMarker(marker) }), log };
  }

  private track(child: TsChild): TsChild {
    this.started.add(child);
    void child.exited.then(() => this.started.delete(child));
    return child;
  }

  async openBus(): Promise<MessageBus> {
    this.bus ??= await createBus(this.settings);
    return this.bus;
  }

  private async watermarks(): Promise<WatermarkService> {
    this.storage ??= await openTableStorage(this.settings);
    return WatermarkService.open(this.storage);
  }

  /** Messages in the work queues (active, locked or scheduled). */
  async pendingWork(): Promise<number> {
    const bus = await this.openBus();
    let pending = 0;
    for (const queue of Object.values(this.settings.queues.work)) {
      const counts = await bus.counts(queue);
      pending += counts.active + counts.scheduled;
    }
    return pending;
  }

  /**
   * After the workload stopped at `since` (with a host running): waits until every job has run
   * twice more (a run that started at least one schedule period after `since`), then until the
   * work queues are empty; then, as an operator would, requeues parked messages with the
   * dead-letter mover and waits again. Returns how many parked messages the mover requeued.
   */
  async settle(since: Date, timeoutMs: number): Promise<{ requeued: number; seconds: number }> {
    const started = Date.now();
    const deadline = started + timeoutMs;
    const watermarks = await this.watermarks();
    const after = since.getTime() + SCHEDULE_PERIOD_MS;
    const ranTwice = async () => {
      const all = await watermarks.getAllWatermarks();
      return Object.values(JOBS).every((job) => (all.get(job)?.lastCronRun?.getTime() ?? 0) >= after);
    };
    await this.until(ranTwice, deadline, 'two detection runs of every job after the workload stopped');
    let requeued = 0;
    for (let round = 0; ; round++) {
      // Empty twice in a row: a message between receive and settle is still counted (locked).
      let quiet = 0;
      await this.until(async () => {
        quiet = (await this.pendingWork()) === 0 ? quiet + 1 : 0;
        return quiet >= 2;
      }, deadline, 'empty work queues');
      const parked = await this.parkedQueues();
      if (parked.length === 0 || round === 3) return { requeued, seconds: (Date.now() - started) / 1000 };
      for (const { queue, count } of parked) {
        const moverNumber = this.children + 1;
        const mover = this.startMover(queue);
        const outcome = await mover.outcome();
        if (outcome.code !== 0) {
          // A mover killed in a crash round leaves its locks behind until they expire (60 s): the
          // next one cannot receive those messages and says so ("nothing was done") — no loss,
          // they are moved once the locks have expired. Anything else is a failure.
          const log = readFileSync(path.join(this.dir, `mover-${moverNumber}.log`), 'utf8');
          const failures = log.split('\n').filter((line) => line.startsWith('  failed:'));
          const onlyLocked = failures.length > 0 && failures.every((line) => line.includes('locked by another receiver') && line.endsWith('nothing was done'));
          if (!onlyLocked) throw new Error(`dead-letter mover on ${queue} exited with ${outcome.code} (see ${this.dir})`);
          await new Promise((resolve) => setTimeout(resolve, 61_000));
        }
        requeued += count;
      }
    }
  }

  /**
   * What an operator does to resync a job's target: empties the target table and resets the
   * job's watermark as `highwater watermark reset` does (a new resync token with it). The host
   * keeps running; its next run sends everything again, inside the bus's duplicate window.
   */
  async resync(job: string, targetTable: 'items' | 'categories'): Promise<void> {
    if (this.mysqlTarget) {
      await this.mysqlTarget.clear(targetTable);
      await (await this.watermarks()).resetWatermark(job);
      return;
    }
    const target = new Database(path.join(this.dir, 'target.db'));
    try {
      target.pragma('busy_timeout = 10000');
      target.prepare(`DELETE FROM ${targetTable}`).run();
    } finally {
      target.close();
    }
    await (await this.watermarks()).resetWatermark(job);
  }

  /** Transitive queues holding messages. */
  async parkedQueues(): Promise<Array<{ queue: string; count: number }>> {
    const bus = await this.openBus();
    const parked = [];
    for (const queue of Object.values(this.settings.queues.transitive)) {
      const { active } = await bus.counts(queue);
      if (active > 0) parked.push({ queue, count: active });
    }
    return parked;
  }

  async verify(): Promise<Verdict> {
    return verifyConvergence({
      source: await this.db.readState(),
      target: this.mysqlTarget ? await this.mysqlTarget.read() : readSqliteTarget(path.join(this.dir, 'target.db')),
      bus: await this.openBus(),
      queues: this.settings.queues,
      sendLog: this.sendLog,
    });
  }

  private async until(probe: () => Promise<boolean>, deadline: number, what: string): Promise<void> {
    while (!(await probe())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (rig ${this.dir})`);
      await sleep(250);
    }
  }

  /**
   * Closes everything; keeps the folder (logs, databases) when `keep` is set, for a failed run.
   * A child still running (a test that failed before it stopped its host, or a mover it did not
   * wait for) is killed first: it would keep the test process alive (its pipes and process
   * handle) and go on writing to the rig while it is removed.
   */
  async close(keep = false): Promise<void> {
    await Promise.all([...this.started].map((child) => child.kill()));
    await this.bus?.close().catch(() => undefined);
    await this.storage?.close().catch(() => undefined);
    await this.db.close().catch(() => undefined);
    if (!keep) await this.mysqlTarget?.drop().catch(() => undefined);
    await this.azurite?.stop();
    if (!keep) rmSync(this.dir, { recursive: true, force: true });
  }
}

function openSource(options: SyncRigOptions, dir: string, url: string | undefined, schema: string): Promise<SourceDb> {
  switch (options.source) {
    case 'sqlite':
      return Promise.resolve(new SqliteSourceDb(path.join(dir, 'source.db'), 100, options.sourceStamps ?? 'database'));
    case 'postgres':
      return PostgresSourceDb.create(url as string, schema);
    case 'sqlite-outbox':
      return Promise.resolve(new SqliteSourceDb(path.join(dir, 'source.db'), 100, options.sourceStamps ?? 'database', true));
    case 'postgres-outbox':
      return PostgresSourceDb.create(url as string, schema, true);
    case 'postgres-xmin':
      return PostgresSourceDb.create(url as string, schema, false, true);
    case 'odata':
      return OdataSourceDb.create();
    case 'mysql':
    case 'mysql-outbox':
      throw new Error('opened by SyncRig.create');
  }
}

/** The host's mysql connection settings for `database` on the server of `url`; its password goes to an env var. */
function mysqlConnection(url: string, database: string): NonNullable<SyncConfigOptions['mysql']> {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  if (password) process.env[MYSQL_PASSWORD_SETTING] = password;
  return {
    host: parsed.hostname, port: Number(parsed.port || 3306), user: decodeURIComponent(parsed.username), database,
    ...(password ? { passwordSetting: MYSQL_PASSWORD_SETTING } : {}),
  };
}

function readMarker(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}
