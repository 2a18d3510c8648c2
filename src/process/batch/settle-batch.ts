import type { OutgoingMessage } from '../../bus/message-bus';
import { errorMessage } from '../../platform/errors';
import type { ProcessingDependencies } from '../processing-dependencies';
import type { ProcessResult } from '../process-result';
import type { BatchSettlement, ReceivedItem } from '../received-item';
import { mapLimited } from '../../platform/map-limited';
import type { SettlePlan } from './settle-plan';

/** Settlements in flight at once where the bus has no batch call (Service Bus). */
const SETTLE_CONCURRENCY = 16;

/**
 * Carries out the plans of a batch: every copy and response first, one send per destination
 * queue; then the originals — completed together (`completeMany` where the bus has it),
 * dead-lettered, or, when a copy of theirs could not be sent, abandoned so the broker delivers
 * them again (nothing is completed whose copy is not safely sent). Resolves with the results in
 * the plans' order; a settlement that failed is named in `settleError`, never thrown.
 */
export async function settleBatch(
  plans: readonly SettlePlan[],
  items: readonly ReceivedItem[],
  deps: ProcessingDependencies,
  settlement: BatchSettlement,
): Promise<ProcessResult[]> {
  const byQueue = new Map<string, Array<{ plan: SettlePlan; message: OutgoingMessage }>>();
  for (const plan of plans) {
    for (const send of plan.sends) {
      const list = byQueue.get(send.queue) ?? [];
      list.push({ plan, message: send.message });
      byQueue.set(send.queue, list);
    }
  }
  const unsent = new Map<SettlePlan, string>();
  await Promise.all(
    [...byQueue].map(async ([queue, sends]) => {
      try {
        await deps.sender.sendOutgoing(queue, sends.map((s) => s.message));
      } catch (err) {
        deps.log.warn(`sending ${sends.length} message(s) to ${queue} failed: ${errorMessage(err)}; their originals are released for redelivery`);
        for (const s of sends) unsent.set(s.plan, `${queue}: ${errorMessage(err)}`);
      }
    }),
  );

  const results = plans.map((plan) => ({ ...plan.result }));
  const position = new Map(plans.map((plan, i) => [plan, i]));
  const toComplete = plans.filter((p) => p.settle.kind === 'complete' && !unsent.has(p));
  const completeErrors = await completeAll(toComplete.map((p) => items[p.index]), settlement);
  toComplete.forEach((p, i) => {
    if (completeErrors[i] !== undefined) results[position.get(p)!].settleError = errorMessage(completeErrors[i]);
  });
  const others = plans.filter((p) => p.settle.kind !== 'complete' || unsent.has(p));
  await mapLimited(others, SETTLE_CONCURRENCY, async (p) => {
    const result = results[position.get(p)!];
    const { settler } = items[p.index];
    try {
      if (unsent.has(p)) {
        await settler.abandon(p.fallback);
        result.disposition = 'abandoned';
        result.error = `released for redelivery: ${unsent.get(p)}`;
      } else if (p.settle.kind === 'deadLetter') {
        await settler.deadLetter(p.settle.options);
      }
    } catch (err) {
      result.settleError = errorMessage(err);
    }
  });
  return results;
}

async function completeAll(items: readonly ReceivedItem[], settlement: BatchSettlement): Promise<unknown[]> {
  if (items.length === 0) return [];
  if (settlement.completeMany) {
    try {
      return await settlement.completeMany(items);
    } catch (err) {
      return items.map(() => err);
    }
  }
  return mapLimited(items, SETTLE_CONCURRENCY, (item) => item.settler.complete().then(() => undefined, (err: unknown) => err));
}
