import { InvalidArgumentError } from 'commander';
import { PRIORITIES, type Priority } from '../../platform/queue-topology';

/**
 * Parses `--concurrency`: one positive integer for every work queue (`32`), or some queues by
 * priority (`normal=32,low=4`); the others keep the host's defaults.
 * @throws InvalidArgumentError naming the part that is wrong.
 */
export function parseConcurrency(value: string): Partial<Record<Priority, number>> {
  if (/^[1-9]\d*$/.test(value)) return Object.fromEntries(PRIORITIES.map((p) => [p, Number(value)]));
  const result: Partial<Record<Priority, number>> = {};
  for (const part of value.split(',')) {
    const match = /^\s*([a-z]+)\s*=\s*(\S+)\s*$/i.exec(part);
    if (!match) {
      throw new InvalidArgumentError(`expected a positive integer or priority=n pairs (e.g. normal=32,low=4), got "${value}"`);
    }
    const [, name, count] = match;
    const priority = name.toLowerCase() as Priority;
    if (!PRIORITIES.includes(priority)) throw new InvalidArgumentError(`unknown priority "${name}" (known: ${PRIORITIES.join(', ')})`);
    if (!/^[1-9]\d*$/.test(count)) throw new InvalidArgumentError(`${priority}: expected a positive integer, got "${count}"`);
    if (result[priority] !== undefined) throw new InvalidArgumentError(`${priority} is given twice`);
    result[priority] = Number(count);
  }
  return result;
}
