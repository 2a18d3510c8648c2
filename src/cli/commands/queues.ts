import type { Command } from 'commander';
import type { MessageBus, QueueCounts } from '../../bus/message-bus';
import { readSettings, type Settings } from '../../platform/settings';
import { errorMessage } from '../../platform/errors';
import { terminalText } from '../../platform/terminal-text';
import { allQueueNames } from '../../platform/queue-topology';

/** One row of `highwater queues`: the counts, or why they could not be read. */
export type QueueCountsRow = { queue: string } & ({ counts: QueueCounts } | { error: string; code?: string });

export interface QueuesCommandDeps {
  /** Default: `readSettings()` from the environment. */
  settings: () => Settings;
  /** Default: `createBus` of `src/bus/create-bus` (the local bus, or Service Bus when configured). */
  createBus: (settings: Settings) => Promise<MessageBus>;
  /** Default: `console.log`. */
  print: (line: string) => void;
}

const defaultDeps: QueuesCommandDeps = {
  settings: () => readSettings(),
  createBus: async (settings) => (await import('../../bus/create-bus')).createBus(settings),
  print: (line) => console.log(terminalText(line)),
};

/** Counts of every configured queue; a queue that fails gets an error row, the others still count. */
async function readQueueCounts(bus: MessageBus, queues: readonly string[]): Promise<QueueCountsRow[]> {
  const rows: QueueCountsRow[] = [];
  for (const queue of queues) {
    try {
      rows.push({ queue, counts: await bus.counts(queue) });
    } catch (err) {
      const code = typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
      rows.push(code === undefined ? { queue, error: errorMessage(err) } : { queue, error: errorMessage(err), code });
    }
  }
  return rows;
}

function countCells(row: { queue: string; counts: QueueCounts }): string[] {
  return [row.queue, String(row.counts.active), String(row.counts.scheduled), String(row.counts.deadLetter)];
}

/** A fixed-width table: queue, active, scheduled, dead-letter; a failed queue shows its error code, details follow the table. */
export function formatQueueTable(rows: readonly QueueCountsRow[]): string[] {
  const header = ['queue', 'active', 'scheduled', 'dead-letter'];
  const counted = rows.flatMap((row) => ('counts' in row ? [countCells(row)] : []));
  const widths = header.map((title, i) =>
    Math.max(title.length, ...(i === 0 ? rows.map((row) => row.queue.length) : counted.map((cells) => cells[i].length))),
  );
  const format = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  const lines = rows.map((row) => ('counts' in row ? format(countCells(row)) : `${row.queue.padEnd(widths[0])}  error: ${row.code ?? 'failed'}`));
  const details = rows.flatMap((row) => ('error' in row ? [`${row.queue}: ${row.error}`] : []));
  return [format(header), ...lines, ...details];
}

/** `highwater queues [--json]`: active, scheduled and dead-letter counts of every queue in the settings. */
export function registerQueuesCommand(program: Command, deps: QueuesCommandDeps = defaultDeps): void {
  program
    .command('queues')
    .description('show active, scheduled and dead-letter message counts of every configured queue')
    .option('--json', 'print JSON instead of a table')
    .action(async (options: { json?: boolean }) => {
      const settings = deps.settings();
      const bus = await deps.createBus(settings);
      let rows: QueueCountsRow[];
      try {
        rows = await readQueueCounts(bus, allQueueNames(settings.queues));
      } finally {
        await bus.close();
      }
      if (options.json) deps.print(JSON.stringify(rows, null, 2));
      else for (const line of formatQueueTable(rows)) deps.print(line);
      const failed = rows.filter((row) => 'error' in row).length;
      if (failed > 0) throw new Error(`${failed} of ${rows.length} queues could not be read`);
    });
}
