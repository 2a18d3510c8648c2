import type { InvocationContext } from '@azure/functions';
import { safeErrorText } from '../../src/bus/message-properties';
import type { ProcessResult } from '../../src/process/process-queue-message-service';

/**
 * One line per failed or unsettled message and one for the batch. Throws when nothing
 * was settled, so that the invocation fails (and shows as failed) and the host abandons what it
 * can.
 */
export function reportBatch(messages: ReadonlyArray<{ messageId?: unknown }>, results: readonly ProcessResult[], context: InvocationContext): void {
  const counts = new Map<string, number>();
  results.forEach((result, i) => {
    const key = `${result.outcome}/${result.disposition}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    if (result.outcome !== 'Failed' && result.settleError === undefined) return;
    let line = `message ${String(messages[i].messageId)} (job ${result.jobName ?? 'unknown'}): ${result.outcome}, ${result.disposition}`;
    if (result.error !== undefined) line += `: ${safeErrorText(result.error)}`;
    if (result.settleError !== undefined) line += ` (not settled: ${result.settleError})`;
    context.warn(line);
  });
  const unsettled = results.filter((result) => result.settleError !== undefined);
  context.log(`${results.length} messages: ${[...counts].map(([key, n]) => `${n} ${key}`).join(', ')}${unsettled.length > 0 ? `; ${unsettled.length} not settled` : ''}`);
  if (results.length > 0 && unsettled.length === results.length) {
    throw new Error(`none of the ${results.length} messages could be settled: ${unsettled[0].settleError}`);
  }
}
