import fs from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { startAzurite } from '../../src/storage/azurite';
import { cpuSeconds, FINAL_ENDS, runHostOnce, type HostRun } from './crm-erp-host';
import { verifyCrmErp } from './crm-erp-verify';
import { BENCH_MYSQL_URL_SETTING, DEFAULT_BENCH_MYSQL_URL, MysqlErp } from './crm-erp-mysql';
import { expectedOutcomes, generateCrmErp, writeCrmErpConfig, type CrmErpSizes, type CrmSource } from './crm-erp-workload';

/**
 * The crm-erp scenario (`npm run bench -- --scenario crm-erp`): the demo's jobs on heavier data
 * (crm-erp-workload.ts), run by `highwater start --once` in a child process on a fresh data
 * folder and a fresh Azurite; reports wall time, messages/s, the host's CPU share, peak RSS and
 * where messages ended, then verifies the end state (crm-erp-verify.ts) and fails otherwise.
 *
 *   npm run bench -- --scenario crm-erp [--accounts 20000] [--contacts 10000] [--runs 1]
 *     [--quick] [--orphans] [--concurrency N|priority=n,…] [--keep] [--tables azurite|sqlite]
 *     [--source sqlite|outbox] [--target sqlite|mysql]
 *
 * `--source outbox`: the CRM writes an outbox row in each change's transaction and its jobs read
 * the outbox (crm-erp-outbox.ts). `--target mysql`: the ERP is a fresh database on the MariaDB /
 * MySQL server of `HIGHWATER_BENCH_MYSQL_URL` (default `mysql://root@127.0.0.1:3306`), dropped
 * after the run (crm-erp-mysql.ts).
 */
export const DEFAULT_SIZES: CrmErpSizes = { accounts: 20_000, contacts: 10_000 };
export const QUICK_SIZES: CrmErpSizes = { accounts: 2_000, contacts: 1_000 };
const REPO = path.resolve(__dirname, '../..');
const VALUE_FLAGS = ['scenario', 'accounts', 'contacts', 'runs', 'concurrency', 'profile', 'tables', 'source', 'target'];
const BOOLEAN_FLAGS = ['quick', 'orphans', 'keep'];
const RETRIES = ['retried', 'released', 'abandoned', 'deferred'];

export class UsageError extends Error {}

export interface CrmErpOptions extends CrmErpSizes {
  runs: number;
  quick: boolean;
  keep: boolean;
  concurrency?: string;
  /** Folder for CPU profiles (`--cpu-prof`) of the host and of Azurite, one pair per run. */
  profile?: string;
  /** Where the host keeps its tables (`HIGHWATER_LOCAL_TABLES`): a fresh Azurite per run (default) or `<dataDir>/tables.db`. */
  tables: 'azurite' | 'sqlite';
  /** Where the CRM's changes are read: its tables (default) or its outbox. */
  source: CrmSource;
  /** The ERP: a SQLite file (default) or a database on a MariaDB/MySQL server. */
  target: 'sqlite' | 'mysql';
  /** `--target mysql`: the server, from `HIGHWATER_BENCH_MYSQL_URL` (default `mysql://root@127.0.0.1:3306`). */
  mysqlUrl?: string;
}

/** Parses the scenario's flags; throws {@link UsageError} naming the flag that is wrong. */
export function parseCrmErpArgs(argv: readonly string[]): CrmErpOptions {
  const values = new Map<string, string>();
  const booleans = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const name = /^--([a-z-]+)$/.exec(argv[i])?.[1];
    if (!name) throw new UsageError(`unexpected argument "${argv[i]}" (flags start with --)`);
    if (BOOLEAN_FLAGS.includes(name)) booleans.add(name);
    else if (VALUE_FLAGS.includes(name)) {
      const value = argv[++i];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`);
      values.set(name, value);
    } else throw new UsageError(`unknown flag --${name} for --scenario crm-erp (known: ${[...VALUE_FLAGS, ...BOOLEAN_FLAGS].map((f) => `--${f}`).join(', ')})`);
  }
  const base = booleans.has('quick') ? QUICK_SIZES : DEFAULT_SIZES;
  const positive = (name: string, fallback: number) => {
    const text = values.get(name);
    if (text === undefined) return fallback;
    if (!/^[1-9]\d*$/.test(text) || !Number.isSafeInteger(Number(text))) throw new UsageError(`--${name} must be a positive integer, got "${text}"`);
    return Number(text);
  };
  const concurrency = values.get('concurrency');
  if (concurrency !== undefined && !/^([1-9]\d*|([a-z]+=[1-9]\d*)(,[a-z]+=[1-9]\d*)*)$/.test(concurrency)) {
    throw new UsageError(`--concurrency must be a positive integer or priority=n pairs (e.g. normal=32,high=16), got "${concurrency}"`);
  }
  const tables = values.get('tables') ?? 'azurite';
  if (tables !== 'azurite' && tables !== 'sqlite') throw new UsageError(`--tables must be azurite or sqlite, got "${tables}"`);
  const source = values.get('source') ?? 'sqlite';
  if (source !== 'sqlite' && source !== 'outbox') throw new UsageError(`--source must be sqlite or outbox, got "${source}"`);
  const target = values.get('target') ?? 'sqlite';
  if (target !== 'sqlite' && target !== 'mysql') throw new UsageError(`--target must be sqlite or mysql, got "${target}"`);
  return {
    tables,
    source,
    target,
    ...(target === 'mysql' ? { mysqlUrl: mysqlServerUrl() } : {}),
    accounts: positive('accounts', base.accounts),
    contacts: positive('contacts', base.contacts),
    runs: positive('runs', 1),
    quick: booleans.has('quick'),
    orphans: booleans.has('orphans'),
    keep: booleans.has('keep'),
    concurrency,
    ...(values.has('profile') ? { profile: path.resolve(values.get('profile') as string) } : {}),
  };
}

/** Compiles every TypeScript file the host can load into the swc cache, without running it: no measured child carries the compiler. */
function primeCompileCache(): void {
  const compile = (Module as unknown as { _extensions: Record<string, ((m: unknown, file: string) => void) | undefined> })._extensions['.ts'];
  if (!compile) return;
  for (const dir of ['src', 'connectors']) {
    for (const entry of fs.readdirSync(path.join(REPO, dir), { recursive: true }) as string[]) {
      if (entry.endsWith('.ts') && !entry.endsWith('.d.ts')) compile({ _compile: () => undefined }, path.join(REPO, dir, entry));
    }
  }
}

/** The Azurite table service this process started last (its child whose command line names azurite). */
function azuritePid(): number | undefined {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('azurite')) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

interface Measured {
  run: HostRun;
  azuriteCpuSeconds?: number;
  load: string;
  /** What is wrong with the end state (crm-erp-verify.ts); empty when it is right. */
  problems: string[];
  dir: string;
}

const loadAverage = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const fmt = (n: number) => n.toLocaleString('en-US');

/** The MariaDB/MySQL server of `--target mysql`; throws {@link UsageError} for a setting that is no mysql:// URL. */
function mysqlServerUrl(): string {
  const url = process.env[BENCH_MYSQL_URL_SETTING] ?? DEFAULT_BENCH_MYSQL_URL;
  if (!/^mysql:\/\/[^/]+/.test(url) || !URL.canParse(url)) throw new UsageError(`${BENCH_MYSQL_URL_SETTING} must be a mysql://user[:password]@host[:port] URL`);
  return url;
}

async function measureOnce(root: string, options: CrmErpOptions, run: number): Promise<Measured> {
  const dir = fs.mkdtempSync(path.join(root, `run-${run}-`));
  generateCrmErp(dir, options, options.source);
  const mysql = options.mysqlUrl ? await MysqlErp.create(options.mysqlUrl, `hw_bench_crm_erp_${process.pid}_${run}`, path.join(dir, 'erp.db')) : undefined;
  try {
    writeCrmErpConfig(dir, options.source, mysql?.connection());
    return await measureHost(dir, options, run, mysql);
  } finally {
    await mysql?.drop();
  }
}

async function measureHost(dir: string, options: CrmErpOptions, run: number, mysql: MysqlErp | undefined): Promise<Measured> {
  const profile = (name: string) => (options.profile ? ['--cpu-prof', '--cpu-prof-dir', options.profile, '--cpu-prof-name', `run-${run}-${name}.cpuprofile`] : []);
  const azurite = options.tables === 'azurite' ? await startAzurite({ port: 0, nodeFlags: profile('azurite') }) : undefined;
  const pid = azurite ? azuritePid() : undefined;
  const before = pid ? cpuSeconds(pid) : undefined;
  const load = loadAverage();
  try {
    const result = await runHostOnce(
      {
        configDir: dir,
        dataDir: path.join(dir, '.data'),
        ...(azurite ? { storageConnectionString: azurite.connectionString } : { localTables: 'sqlite' }),
        logFile: path.join(dir, 'host.log'),
        concurrency: options.concurrency,
        nodeFlags: profile('host'),
      },
      (line) => console.error(`  ${line}`),
    );
    const after = pid ? cpuSeconds(pid) : undefined;
    const azuriteCpuSeconds = before && after ? after.user + after.system - before.user - before.system : azurite ? undefined : 0;
    const loadAfter = loadAverage();
    // The MySQL ERP is judged by the same checks, on a copy of its tables in erp.db.
    await mysql?.copyInto(path.join(dir, 'erp.db'));
    return { run: result, azuriteCpuSeconds, load: `${load} → ${loadAfter}`, problems: verifyCrmErp(dir, options, result), dir };
  } finally {
    await azurite?.stop();
  }
}

/** One run's figures. Messages: each counted once where it ended (every queue, responses included); deliveries: every attempt. */
function figures({ run: r, azuriteCpuSeconds }: Measured): Record<string, number> {
  const ended = r.summary.ended;
  const unknown = Object.keys(ended).filter((k) => !FINAL_ENDS.includes(k) && !RETRIES.includes(k));
  if (unknown.length > 0) console.error(`  note: the summary has outcomes this benchmark does not know (${unknown.join(', ')}): not counted as messages`);
  const messages = FINAL_ENDS.reduce((n, k) => n + (ended[k] ?? 0), 0);
  return {
    messages,
    deliveries: Object.keys(r.summary.attempts).length > 0
      ? Object.values(r.summary.attempts).reduce((a, b) => a + b, 0)
      : Object.values(r.summary.processed).reduce((n, q) => n + Object.values(q).reduce((a, b) => a + b, 0), 0),
    wall: round(r.wallSeconds), perSecond: Math.round(messages / r.wallSeconds),
    cpu: round((100 * (r.userSeconds + r.systemSeconds)) / r.wallSeconds), user: round(r.userSeconds), system: round(r.systemSeconds),
    azurite: azuriteCpuSeconds === undefined ? NaN : round((100 * azuriteCpuSeconds) / r.wallSeconds), rss: round(r.peakRssMb),
    applied: ended.applied ?? 0, superseded: ended.superseded ?? 0, ignored: ended.ignored ?? 0, parked: ended.parked ?? 0, deadLettered: ended.deadLettered ?? 0,
    retries: RETRIES.reduce((n, k) => n + (ended[k] ?? 0), 0),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const value = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return Math.round(value * 10) / 10;
}

function printTable(rows: Array<Record<string, number>>): void {
  const m = (key: string) => median(rows.map((r) => r[key]));
  console.log('| messages | deliveries | wall s | msgs/s | host CPU % | Azurite CPU % | peak RSS MB | applied | superseded | ignored | parked | dead-lettered | retries |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  console.log(`| ${fmt(m('messages'))} | ${fmt(m('deliveries'))} | ${m('wall')} | ${fmt(m('perSecond'))} | ${m('cpu')} | ${m('azurite')} | ${m('rss')} | ` +
    `${fmt(m('applied'))} | ${fmt(m('superseded'))} | ${m('ignored')} | ${m('parked')} | ${m('deadLettered')} | ${fmt(m('retries'))} |`);
  if (rows.length > 1) console.log(`(median of ${rows.length} runs; msgs/s per run: ${rows.map((r) => fmt(r.perSecond)).join(' / ')})`);
}

export async function runCrmErpScenario(argv: readonly string[]): Promise<void> {
  const options = parseCrmErpArgs(argv);
  const expected = expectedOutcomes(options);
  console.log(`node ${process.version}, ${os.cpus().length} cores, load ${loadAverage()}`);
  console.log(`crm-erp: ${fmt(options.accounts)} accounts, ${fmt(options.contacts)} contacts → ${fmt(expected.messages)} messages ` +
    `(${fmt(expected.detected)} detected + ${fmt(expected.responses)} responses)${options.orphans ? ', with orphan contacts' : ''}, ${options.runs} run(s)` +
    `${options.concurrency ? `, --concurrency ${options.concurrency}` : ''}, tables in ${options.tables === 'sqlite' ? 'SQLite (HIGHWATER_LOCAL_TABLES=sqlite)' : 'Azurite'}` +
    `, CRM read ${options.source === 'outbox' ? 'through its outbox' : 'by modified_at'}, ERP on ${options.target === 'mysql' ? `MariaDB/MySQL (${new URL(options.mysqlUrl as string).host})` : 'SQLite'}\n`);
  primeCompileCache();
  if (options.profile) fs.mkdirSync(options.profile, { recursive: true });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'highwater-bench-crm-erp-'));
  const rows: Array<Record<string, number>> = [];
  for (let run = 0; run < options.runs; run++) {
    const measured = await measureOnce(root, options, run);
    const row = figures(measured);
    rows.push(row);
    console.error(`run ${run + 1} (load ${measured.load}): ${fmt(row.messages)} messages in ${row.wall} s = ${fmt(row.perSecond)} msgs/s, host CPU ${row.cpu}% ` +
      `(user ${row.user} s + system ${row.system} s), Azurite CPU ${row.azurite}%, peak RSS ${row.rss} MB; ${measured.problems.length ? 'END STATE WRONG' : 'verified'}`);
    const perQueue = Object.entries(measured.run.summary.processed).map(([q, c]) => `${q} ${Object.entries(c).filter(([, v]) => v > 0).map(([o, v]) => `${o} ${v}`).join('/')}`);
    console.error(`  messages per queue: ${perQueue.join(' · ')}`);
    if (measured.problems.length > 0) {
      printTable(rows);
      throw new Error(`crm-erp run ${run + 1}: the end state is wrong (folder kept: ${measured.dir}, host log in it):\n  - ${measured.problems.join('\n  - ')}`);
    }
    if (!options.keep) fs.rmSync(measured.dir, { recursive: true, force: true });
  }
  if (options.profile) console.error(`CPU profiles (host, Azurite) in ${options.profile}`);
  if (options.keep) console.error(`run folders kept in ${root}`);
  else fs.rmSync(root, { recursive: true, force: true });
  printTable(rows);
}
