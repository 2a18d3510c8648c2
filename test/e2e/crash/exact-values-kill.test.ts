import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { createBus } from '../../../src/bus/create-bus';
import type { MessageBus } from '../../../src/bus/message-bus';
import { allQueueNames } from '../../../src/platform/queue-topology';
import { readSettings, type Settings } from '../../../src/platform/settings';
import { BYTES_VALUE, DECIMAL_VALUE, INT64_VALUES, JSON_VALUE } from '../../contract/value-matrix';
import { bySoak } from '../../support/fault-injection';
import { TsChild } from '../convergence/support/child-process';
import { runSeed, SeededRandom } from '../convergence/support/seeded-random';
import { sleep } from '../convergence/support/source-db';
import { CRASH_MARKER_ENV, FAULT_ENV, type CrashPlan } from './support/fault-hooks';

/**
 * The value matrix (64-bit integers beyond 2^53 as values and keys, decimals of 32 digits, bytes
 * 0–255, instants with an offset and microseconds, JSON) SQLite → SQLite through the local host
 * (`highwater start`, a child process) while a writer changes rows and the host is killed with
 * SIGKILL at exact points and restarted: the target ends exact, value for value, type for type.
 * CI kills during detection and before the watermark write (a kill while messages are locked
 * costs a 60 s lock expiry); `HIGHWATER_SOAK=1` adds kills after an apply before its completion
 * and at random moments, over more rounds and rows.
 */
const ROWS = bySoak(200, 2_000);
const KINDS: ReadonlyArray<CrashPlan['point'] | 'timer'> = bySoak(['detection', 'before-watermark'], ['detection', 'processing', 'before-watermark', 'timer']);
const ROUNDS = bySoak(4, 12);
const SCHEDULE = '* * * * * *';
/** Keys beyond 2^53: a key that went through a JS number would collide or move. */
const KEY_BASE = 9007199254740993n;

/** Row `k` at `version`: every value one a number, a text column or a driver's parser would change. */
function rowValues(k: number, version: number) {
  const base = BigInt(INT64_VALUES[(k + version) % INT64_VALUES.length]);
  const rotate = version % 256;
  return {
    id: KEY_BASE + BigInt(k) * 1_000_003n,
    i8: base > 0n ? base - BigInt(version) : base + BigInt(version),
    dec: `${version}${DECIMAL_VALUE}`,
    bin: Buffer.concat([BYTES_VALUE.subarray(rotate), BYTES_VALUE.subarray(0, rotate)]),
    ts: `2026-01-02 03:04:05.${String(version % 1_000_000).padStart(6, '0')}+02`,
    doc: JSON.stringify({ ...JSON_VALUE, version }),
    ver: version,
  };
}

const READ = 'SELECT CAST(id AS TEXT) AS id, typeof(i8) AS i8kind, CAST(i8 AS TEXT) AS i8, typeof(dec) AS deckind, dec, typeof(bin) AS binkind, hex(bin) AS bin, ts, doc FROM vals ORDER BY vals.id';

describe('crash: the value matrix through a host killed and restarted', () => {
  const seed = runSeed();
  it(`ends exact over ${ROUNDS} kills (seed ${seed})`, async () => {
    const random = new SeededRandom(seed);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hw-exact-kill-'));
    const settings: Settings = { ...readSettings({}), storageConnectionString: undefined, localTables: 'sqlite', dataDir: path.join(dir, 'data'), getChangesSchedule: SCHEDULE };
    const source = new Database(path.join(dir, 'src.db'));
    const hosts: TsChild[] = [];
    let bus: MessageBus | undefined;
    let keep = true;
    const stop = new AbortController();
    let writer: Promise<number> | undefined;
    try {
      source.pragma('journal_mode = WAL');
      source.exec('CREATE TABLE vals (id INTEGER PRIMARY KEY, i8 INTEGER, dec TEXT, bin BLOB, ts TEXT, doc TEXT, ver INTEGER NOT NULL)');
      const upsert = source.prepare(
        'INSERT INTO vals (id, i8, dec, bin, ts, doc, ver) VALUES (@id, @i8, @dec, @bin, @ts, @doc, @ver) ON CONFLICT (id) DO UPDATE SET i8 = @i8, dec = @dec, bin = @bin, ts = @ts, doc = @doc, ver = @ver',
      );
      let version = 0;
      source.transaction(() => {
        for (let k = 0; k < ROWS; k++) upsert.run(rowValues(k, ++version));
      })();
      const target = new Database(path.join(dir, 'tgt.db'));
      target.pragma('journal_mode = WAL');
      target.exec('CREATE TABLE vals (id INTEGER PRIMARY KEY, i8 INTEGER, dec TEXT, bin BLOB, ts TEXT, doc TEXT, ver INTEGER)');
      target.close();
      writeConfig(dir);

      // The writer: a few rows every 30 ms get new values (one transaction, increasing `ver`).
      writer = (async () => {
        let transactions = 0;
        while (!stop.signal.aborted) {
          const picked = random.sample(Array.from({ length: ROWS }, (_, k) => k), random.int(1, 5));
          source.transaction(() => {
            for (const k of picked) upsert.run(rowValues(k, ++version));
          })();
          transactions++;
          await sleep(30);
        }
        return transactions;
      })();

      const start = async (plan?: CrashPlan) => {
        const n = hosts.length + 1;
        const env = {
          HIGHWATER_LOCAL_TABLES: 'sqlite',
          HIGHWATER_DATA_DIR: settings.dataDir,
          GetChangesSchedule: SCHEDULE,
          [CRASH_MARKER_ENV]: path.join(dir, `crash-${n}.txt`),
          ...(plan ? { [FAULT_ENV]: JSON.stringify(plan) } : {}),
        };
        const host = TsChild.start('test/e2e/convergence/support/host-child.ts', ['--config', dir], env, path.join(dir, `host-${n}.log`));
        hosts.push(host);
        await host.waitFor(/Highwater local host on http:\/\/127\.0\.0\.1:\d+/, 60_000);
        return host;
      };
      const kills: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const kind = KINDS[round % KINDS.length];
        const plan: CrashPlan | undefined = kind === 'timer' ? undefined : { point: kind, after: random.int(1, kind === 'before-watermark' ? 20 : 120) };
        const host = await start(plan);
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), plan ? 10_000 : random.int(1_000, 5_000))));
        const died = await Promise.race([host.exited.then(() => true), timedOut]);
        clearTimeout(timer);
        if (!died) await host.kill();
        const exit = await host.exited;
        if (exit.signal !== 'SIGKILL') throw new Error(`round ${round}: host exited with ${exit.code ?? exit.signal}, expected SIGKILL (see ${dir})`);
        kills.push(died ? kind : `${kind} (timer)`);
      }
      stop.abort();
      const transactions = await writer;

      const last = await start();
      const expected = source.prepare(READ).all();
      bus = await createBus(settings);
      const work = Object.values(settings.queues.work);
      const deadline = Date.now() + 150_000;
      const reader = new Database(path.join(dir, 'tgt.db'), { readonly: true });
      let actual: unknown[] = [];
      try {
        for (;;) {
          actual = reader.prepare(READ).all();
          let pending = 0;
          for (const queue of work) {
            const counts = await bus.counts(queue);
            pending += counts.active + counts.scheduled;
          }
          if (pending === 0 && JSON.stringify(actual) === JSON.stringify(expected)) break;
          if (Date.now() > deadline) break;
          await sleep(250);
        }
      } finally {
        reader.close();
      }
      await last.stop();
      const dead: Record<string, number> = {};
      for (const queue of allQueueNames(settings.queues)) {
        const counts = await bus.counts(queue);
        if (counts.deadLetter > 0) dead[queue] = counts.deadLetter;
      }
      const differing = actual.length === expected.length ? expected.filter((row, i) => JSON.stringify(row) !== JSON.stringify(actual[i])).length : Math.abs(actual.length - expected.length);
      process.stdout.write(`crash/exact-values: ${JSON.stringify({ seed, rows: ROWS, kills, transactions, versions: version, differing, deadLettered: dead })}\n`);
      expect(dead).toEqual({});
      expect(actual).toHaveLength(ROWS);
      expect(actual).toEqual(expected);
      expect((expected[0] as { binkind: string; i8kind: string }).binkind).toBe('blob');
      keep = false;
    } finally {
      stop.abort();
      await writer?.catch(() => undefined);
      await Promise.all(hosts.map((h) => h.kill()));
      await bus?.close().catch(() => undefined);
      source.close();
      if (!keep) rmSync(dir, { recursive: true, force: true });
    }
  }, bySoak(240_000, 600_000));
});

function writeConfig(dir: string): void {
  const connections = [
    { name: 'src', type: 'sqlite', settings: { file: './src.db' } },
    { name: 'tgt', type: 'sqlite', settings: { file: './tgt.db' } },
  ];
  const fields = ['id', 'i8', 'dec', 'bin', 'ts', 'doc', 'ver'].map((f) => ({ target: f, source: f }));
  const mappings = [{ name: 'vals', source: { entity: 'vals', key: ['id'] }, target: { entity: 'vals', key: ['id'], versionField: 'ver' }, fields }];
  // No skipOutdatedMessages: a batch applied by a host killed before it completed comes back after
  // its 60 s lock, older than what the next host applied; its records were never set aside, so the
  // applied-version store knows nothing of them — the source check of redeliveries must catch it.
  const jobs = [
    { name: 'vals', order: 10, schedule: SCHEDULE, source: 'src', target: 'tgt', mapping: 'vals', priority: 'normal', watermark: { type: 'number', field: 'ver' }, pageSize: 50 },
  ];
  writeFileSync(path.join(dir, 'connections.yaml'), stringify({ connections }));
  writeFileSync(path.join(dir, 'mappings.yaml'), stringify({ mappings }));
  writeFileSync(path.join(dir, 'jobs.yaml'), stringify({ jobs }));
}
