import type { Command } from 'commander';
import type { MessageBus } from '../../bus/message-bus';
import type { Job } from '../../model/job';
import { pairJobName, type PairSideName } from '../../model/pair';
import { errorMessage } from '../../platform/errors';
import type { Settings } from '../../platform/settings';
import { tableKeyProblem } from '../../storage/table-key';
import type { TableStorage } from '../../storage/table-store';
import type { PairConflict } from '../../twoway/coupling-store';
import { UsageError } from '../cli-error';
import { defaultStorageCommandDeps, withStorage, type StorageCommandDeps } from './config';
import { PUSH_HINT } from './job-state';

/** What `highwater conflicts` needs: storage as the other storage commands, and the bus. */
export interface ConflictsCommandDeps extends StorageCommandDeps {
  /** Default: `createBus` of `src/bus/create-bus` (the local bus, or Service Bus when configured). */
  createBus: (settings: Settings) => Promise<MessageBus>;
  /** Default: the system clock. */
  now: () => Date;
}

const defaultDeps: ConflictsCommandDeps = {
  ...defaultStorageCommandDeps,
  createBus: async (settings) => (await import('../../bus/create-bus')).createBus(settings),
  now: () => new Date(),
};

function checkPairName(pair: string): void {
  const problem = tableKeyProblem(pair);
  if (problem) throw new UsageError(`pair name ${JSON.stringify(pair)} ${problem}`);
}

/** `--take` as a side. @throws UsageError when it is missing or neither `a` nor `b`. */
function parseTake(value: string | undefined): PairSideName {
  if (value === undefined) throw new UsageError('--take is required: a (side a\'s values win) or b');
  if (value === 'a' || value === 'b') return value;
  throw new UsageError(`--take must be a or b, got ${JSON.stringify(value)}`);
}

/** A fixed-width table of parked conflicts, one a line. */
function formatConflictTable(conflicts: readonly PairConflict[]): string[] {
  const header = ['pair', 'a key', 'b key', 'fields', 'a tracker', 'b tracker', 'detected at', 'resolution'];
  const rows = conflicts.map((c) => [
    c.pair,
    c.keyA,
    c.keyB,
    c.fields.join(', '),
    c.a.tracker ?? '-',
    c.b.tracker ?? '-',
    c.detectedAt,
    c.resolution ? `${c.resolution} at ${c.resolvedAt ?? '?'}` : '-',
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  return [header, ...rows].map((row) => row.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd());
}

/** The jobs of `--config DIR`, else of the configuration tables; `where` names their place in errors. */
async function configuredJobs(storage: TableStorage, configDir: string | undefined): Promise<{ jobs: Job[]; where: string }> {
  if (configDir !== undefined) {
    const { loadConfigFolder } = await import('../../config/load-config');
    return { jobs: (await loadConfigFolder(configDir)).jobs, where: configDir };
  }
  const { ConfigStore } = await import('../../config/config-store');
  return { jobs: (await new ConfigStore(storage).pull()).jobs, where: 'the configuration tables' };
}

async function couplingStore(storage: TableStorage) {
  return (await import('../../twoway/table-coupling-store')).createCouplingStore(storage);
}

/**
 * `highwater conflicts list [--pair NAME] [--json]`: the conflicts that pairs with the `manual`
 * policy parked; `highwater conflicts resolve PAIR KEY_A --take a|b`: decides one (its record's
 * next sync applies the winning side) and sends one notice so that the sync happens now.
 */
export function registerConflictsCommands(program: Command, deps: ConflictsCommandDeps = defaultDeps): void {
  const conflicts = program.command('conflicts').description('two-way pairs: list and resolve conflicts parked by the manual policy');

  conflicts
    .command('list')
    .description('parked conflicts: both trackers, the fields both sides changed, the resolution once decided')
    .option('--pair <name>', 'only this pair')
    .option('--json', 'print JSON (both sides\' values included)')
    .action(async (options: { pair?: string; json?: boolean }) => {
      if (options.pair !== undefined) checkPairName(options.pair);
      const parked = await withStorage(deps, async (storage) => (await couplingStore(storage)).listConflicts(options.pair));
      if (options.json) return deps.print(JSON.stringify(parked, null, 2));
      if (parked.length === 0) return deps.print(options.pair === undefined ? 'no parked conflicts' : `no parked conflicts of pair ${JSON.stringify(options.pair)}`);
      for (const line of formatConflictTable(parked)) deps.print(line);
    });

  conflicts
    .command('resolve')
    .description("decide a parked conflict: the chosen side's values win, and the record is synced again")
    .argument('<pair>', 'pair name')
    .argument('<keyA>', "the record's key on side a (as `conflicts list` shows it)")
    .option('--take <side>', 'the side whose values win: a or b')
    .option('--config <dir>', "find the pair's jobs in this config folder (default: the configuration tables)")
    .action(async (pair: string, keyA: string, options: { take?: string; config?: string }) => {
      checkPairName(pair);
      const take = parseTake(options.take);
      const { conflict, queue, jobName } = await withStorage(deps, async (storage) => {
        const store = await couplingStore(storage);
        const parked = await store.getConflict(pair, keyA);
        if (!parked) throw new UsageError(`no parked conflict of pair ${JSON.stringify(pair)} for a key ${JSON.stringify(keyA)} (\`highwater conflicts list --pair ${pair}\` lists them)`);
        const name = pairJobName(pair, take);
        const { jobs, where } = await configuredJobs(storage, options.config);
        const job = jobs.find((j) => j.name === name);
        if (!job) {
          const hint = options.config === undefined ? `; ${PUSH_HINT}, or pass --config DIR` : '';
          throw new UsageError(`job ${JSON.stringify(name)} of pair ${JSON.stringify(pair)} is not in ${where}: the conflict stays unresolved${hint}`);
        }
        const { resolvedConflict } = await import('../../twoway/conflict-resolution');
        const decided = resolvedConflict(parked, take, deps.now());
        // Decided before the notice is sent: the sync it starts must find the resolution.
        await store.putConflict(decided);
        return { conflict: decided, queue: deps.settings().queues.work[job.priority], jobName: name };
      });
      const { resolutionMessage, resolutionOutgoing } = await import('../../twoway/conflict-resolution');
      const bus = await deps.createBus(deps.settings());
      try {
        await bus.send(queue, [resolutionOutgoing(resolutionMessage(conflict, take, deps.now()), conflict)]);
      } catch (err) {
        throw new Error(`the conflict is resolved (side ${take}), but the sync of its record could not be sent to ${queue}: ${errorMessage(err)}; run the command again`, { cause: err });
      } finally {
        await bus.close();
      }
      deps.print(`pair ${pair}, a key ${keyA}: side ${take} wins; sent a sync of ${take === 'a' ? `a key ${conflict.keyA}` : `b key ${conflict.keyB}`} to ${queue} (job ${jobName})`);
    });
}
