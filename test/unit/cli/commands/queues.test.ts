import { Command } from 'commander';
import { BusError } from '../../../../src/bus/message-bus';
import { registerQueuesCommand, formatQueueTable, type QueuesCommandDeps } from '../../../../src/cli/commands/queues';
import { readSettings, type Settings } from '../../../../src/platform/settings';
import { InMemorySendBus } from '../../bus/support/in-memory-send-bus';

/** A bus whose `counts` answers from a table; a missing queue is QueueNotFound, as on Service Bus. */
class CountingBus extends InMemorySendBus {
  closed = false;
  constructor(private readonly table: Record<string, [number, number, number]>) {
    super(Object.keys(table));
  }
  override async counts(queue: string) {
    const row = this.table[queue];
    if (row === undefined) throw new BusError('QueueNotFound', `counts on queue '${queue}' failed: not found`);
    return { active: row[0], scheduled: row[1], deadLetter: row[2] };
  }
  override async close() {
    this.closed = true;
  }
}

function run(args: string[], bus: CountingBus, settings: Settings = readSettings({}, '/tmp')) {
  const lines: string[] = [];
  const created: Settings[] = [];
  const deps: QueuesCommandDeps = {
    settings: () => settings,
    createBus: async (s) => {
      created.push(s);
      return bus;
    },
    print: (line) => lines.push(line),
  };
  const program = new Command('highwater').exitOverride();
  registerQueuesCommand(program, deps);
  return { lines, created, done: program.parseAsync(['queues', ...args], { from: 'user' }) };
}

const ALL: Record<string, [number, number, number]> = {
  sbqhigh: [3, 0, 1],
  sbqnormal: [120, 2, 0],
  sbqlow: [0, 0, 0],
  sbqtransitivehigh: [0, 0, 0],
  sbqtransitivenormal: [7, 0, 0],
  sbqtransitivelow: [0, 0, 0],
  sbqignored: [42, 0, 0],
};

describe('highwater queues', () => {
  it('prints a table of every configured queue, work queues first, and closes the bus', async () => {
    const bus = new CountingBus(ALL);
    const { lines, done } = run([], bus);
    await done;
    expect(lines).toEqual([
      'queue                active  scheduled  dead-letter',
      'sbqhigh                   3          0            1',
      'sbqnormal               120          2            0',
      'sbqlow                    0          0            0',
      'sbqtransitivehigh         0          0            0',
      'sbqtransitivenormal       7          0            0',
      'sbqtransitivelow          0          0            0',
      'sbqignored               42          0            0',
    ]);
    expect(bus.closed).toBe(true);
  });

  it('--json prints the rows as JSON', async () => {
    const { lines, done } = run(['--json'], new CountingBus(ALL));
    await done;
    const rows = JSON.parse(lines.join('\n'));
    expect(rows).toHaveLength(7);
    expect(rows[1]).toEqual({ queue: 'sbqnormal', counts: { active: 120, scheduled: 2, deadLetter: 0 } });
  });

  it('uses the queue names from the settings', async () => {
    const settings = readSettings({ QUEUE_HIGH: 'custom-high' }, '/tmp');
    const { lines, created, done } = run(['--json'], new CountingBus({ ...ALL, 'custom-high': [9, 9, 9] }), settings);
    await done;
    expect(created).toEqual([settings]);
    expect(JSON.parse(lines.join('\n'))[0]).toEqual({ queue: 'custom-high', counts: { active: 9, scheduled: 9, deadLetter: 9 } });
  });

  it('shows queues that cannot be read, still counts the others, and fails', async () => {
    const { sbqignored: _, ...withoutIgnored } = ALL;
    const bus = new CountingBus(withoutIgnored);
    const { lines, done } = run([], bus);
    await expect(done).rejects.toThrow('1 of 7 queues could not be read');
    expect(lines.slice(-2)).toEqual(['sbqignored           error: QueueNotFound', "sbqignored: counts on queue 'sbqignored' failed: not found"]);
    expect(lines[1]).toBe('sbqhigh                   3          0            1');
    expect(bus.closed).toBe(true);
  });

  it('formatQueueTable widens columns for long names', () => {
    expect(formatQueueTable([{ queue: 'a-very-long-queue-name', counts: { active: 1, scheduled: 22, deadLetter: 333 } }])).toEqual([
      'queue                   active  scheduled  dead-letter',
      'a-very-long-queue-name       1         22          333',
    ]);
  });
});
