import type { Command } from 'commander';
import type { HighwaterConfig } from '../../model/config';
import type { QueueMessage } from '../../model/queue-message';
import { pairJobName, type Pair, type PairSideName } from '../../model/pair';
import { errorMessage, TransientError } from '../../platform/errors';
import { readSettings, type Settings } from '../../platform/settings';
import { terminalText } from '../../platform/terminal-text';
import type { Runtime, RuntimeOptions } from '../../runtime/runtime';
import type { Logger } from '../../telemetry/logger';
import type { SideRecords } from '../../twoway/read-side';
import { UsageError } from '../cli-error';
import { PUSH_HINT } from './job-state';
import { formatMatchReport, type PairMatchReport } from './pairs-match-report';

export interface PairsCommandDeps {
  /** Default: `readSettings()` from the environment. */
  settings: () => Settings;
  /** Default: `createRuntime` (storage, bus and connectors as the settings say, like `highwater run`). */
  openRuntime: (options: RuntimeOptions) => Promise<Runtime>;
  /** Results (stdout). Default: `console.log`. */
  print: (line: string) => void;
  /** Notices and warnings (stderr). Default: `console.error`. */
  notice: (line: string) => void;
  /** Default: the system clock. */
  now: () => Date;
}

const defaultDeps: PairsCommandDeps = {
  settings: () => readSettings(),
  // Loaded on use: the runtime pulls in every connector, which other commands do not need.
  openRuntime: async (options) => (await import('../../runtime/runtime')).createRuntime(options),
  print: (line) => console.log(terminalText(line)),
  notice: (line) => console.error(terminalText(line)),
  now: () => new Date(),
};

function cliLogger(notice: (line: string) => void): Logger {
  return { info: () => {}, warn: (m) => notice(`warning: ${m}`), error: () => {} };
}

/** The pair named `name`, with match fields. @throws UsageError when it is unknown or has none. */
function requireMatchPair(config: HighwaterConfig, name: string, where: string): Pair & { match: NonNullable<Pair['match']> } {
  const pair = config.pairs.find((p) => p.name === name);
  if (!pair) {
    if (config.pairs.length === 0) throw new UsageError(`unknown pair ${JSON.stringify(name)}: there are no pairs in ${where}; ${PUSH_HINT}, or pass --config DIR`);
    throw new UsageError(`unknown pair ${JSON.stringify(name)} in ${where}; known pairs: ${config.pairs.map((p) => p.name).sort().join(', ')}`);
  }
  if (!pair.match || pair.match.length === 0) {
    throw new UsageError(
      `pair ${JSON.stringify(name)} has no match fields: add \`match\` to the pair (e.g. match: [{ a: email, b: mail, ignoreCase: true }]) to couple records whose keys differ; records with the same key on both sides need nothing, the first sync couples them by their key`,
    );
  }
  return pair as Pair & { match: NonNullable<Pair['match']> };
}

/** Every record of one side, read through its job's source with the raw match values added. */
async function readPairSide(runtime: Runtime, pair: Pair & { match: NonNullable<Pair['match']> }, side: PairSideName, warn: (m: string) => void): Promise<SideRecords> {
  const { matchReadMapping } = await import('../../twoway/initial-match');
  const { readSide } = await import('../../twoway/read-side');
  const job = runtime.init.getJob(pairJobName(pair.name, side));
  const mapping = matchReadMapping(runtime.init.getMapping(job.mapping), pair.match, side);
  try {
    return await readSide(await runtime.connectors.source(job.source), mapping, job, warn);
  } catch (err) {
    throw new Error(`pair ${pair.name}: side ${side} (connection ${job.source}, entity ${pair[side].entity}) could not be read: ${errorMessage(err)}`, { cause: err });
  }
}

/**
 * Writes the couplings of `report.matched` (a record coupled meanwhile, by a sync that ran, is
 * left as it is), holds each ambiguous record, and releases the holds of records that are no
 * longer ambiguous, sending each a sync (see `match-holds.ts`). A hold an operator resolved stays as decided.
 */
async function applyMatches(runtime: Runtime, pair: Pair, report: PairMatchReport, records: Record<PairSideName, readonly QueueMessage[]>, now: Date): Promise<void> {
  const { initialCoupling } = await import('../../twoway/initial-match');
  const { AMBIGUOUS, heldSide, holdsOf, releaseNotice } = await import('../../twoway/match-holds');
  const store = runtime.couplings;
  for (const matched of report.matched) {
    try {
      await store.put(initialCoupling(report.pair, matched, now));
      report.written++;
    } catch (err) {
      if (!(err instanceof TransientError && err.message.startsWith('coupling changed'))) throw err;
      report.coupledMeanwhile.push({ keyA: matched.keyA, keyB: matched.keyB });
    }
  }
  const parked = new Map((await store.listConflicts(pair.name)).map((c) => [c.keyA, c]));
  const holds = holdsOf(pair, report, records, now);
  for (const hold of holds) {
    const existing = parked.get(hold.keyA);
    // A conflict of the sync, or a hold already decided, is not overwritten.
    if (existing && (existing.fields[0] !== AMBIGUOUS || existing.resolution !== undefined)) continue;
    await store.putConflict(existing ? { ...hold, detectedAt: existing.detectedAt } : hold);
    report.held++;
  }
  const wanted = new Set(holds.map((h) => h.keyA));
  const released = [...parked.values()].filter((c) => c.fields[0] === AMBIGUOUS && c.resolution === undefined && !wanted.has(c.keyA));
  for (const hold of released) {
    // Detection passed its changes while it was held: a sync now, with the record's current
    // tracker. Sent before the hold goes, so that a failed send leaves it for the next run.
    const side = heldSide(hold);
    const current = records[side].find((m) => m.sourceKey === (side === 'a' ? hold.keyA : hold.keyB));
    const { outgoing } = releaseNotice(hold, current?.changeTracker ?? hold[side].tracker ?? '', now);
    const queue = runtime.settings.queues.work[runtime.init.getJob(pairJobName(pair.name, side)).priority];
    await runtime.bus.send(queue, [outgoing]);
    await store.removeConflict(pair.name, hold.keyA);
    report.released++;
  }
}

/**
 * `highwater pairs match PAIR [--apply] [--json] [--config DIR]`: the initial coupling of a pair.
 * Reads every record of both sides through the pair's jobs (as a dry run reads, nothing sent or
 * saved), matches them by the pair's `match` fields (see `src/twoway/initial-match.ts`), prints
 * what it found and, with `--apply`, couples the matched records and holds the ambiguous ones
 * (see `src/twoway/match-holds.ts`). Meant for before the pair's first sync. Exit codes: 0 done, 1 a side or the storage failed, 2 an unknown pair or one without `match`.
 */
export function registerPairsCommands(program: Command, deps: PairsCommandDeps = defaultDeps): void {
  const pairs = program.command('pairs').description('two-way pairs: initial coupling of records that exist on both sides');

  pairs
    .command('match')
    .description("couple records that exist on both sides under different keys by the pair's match fields (dry run unless --apply)")
    .argument('<pair>', 'pair name')
    .option('--apply', 'couple the matched records and hold the ambiguous ones until resolved (default: only show them)')
    .option('--json', 'print JSON (every record of every group)')
    .option('--config <dir>', 'read the configuration from this folder (default: from the configuration tables)')
    .action(async (name: string, options: { apply?: boolean; json?: boolean; config?: string }) => {
      const warn = (m: string) => deps.notice(`warning: ${m}`);
      const runtime = await deps.openRuntime({ settings: deps.settings(), ...(options.config === undefined ? {} : { configDir: options.config }), log: cliLogger(deps.notice) });
      let report: PairMatchReport;
      let pair: Pair;
      try {
        await runtime.init.ensureInitialized();
        const matchPair = requireMatchPair(runtime.init.config, name, options.config ?? 'the configuration tables');
        pair = matchPair;
        const [a, b] = [await readPairSide(runtime, matchPair, 'a', warn), await readPairSide(runtime, matchPair, 'b', warn)];
        const couplings = await runtime.couplings.list(name);
        const { matchRecords } = await import('../../twoway/initial-match');
        const found = matchRecords({ pair: matchPair, a: a.records, b: b.records, couplings });
        report = {
          pair: name,
          read: { a: { records: a.records.length, skipped: a.skipped }, b: { records: b.records.length, skipped: b.skipped } },
          ...found,
          applied: options.apply ?? false,
          written: 0,
          coupledMeanwhile: [],
          held: 0,
          released: 0,
        };
        if (options.apply) await applyMatches(runtime, matchPair, report, { a: a.records, b: b.records }, deps.now());
      } finally {
        await runtime.close();
      }
      const lines = options.json ? [JSON.stringify(report, null, 2)] : formatMatchReport(report, pair);
      for (const line of lines) deps.print(line);
    });
}
