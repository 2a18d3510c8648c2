import type { Clock } from '../platform/clock';
import type { MessageSettler } from './message-settler';

/**
 * Renews the lock of every message of a batch every `intervalMs` until stopped (the Functions
 * host does not renew locks for batch triggers): one timer for the batch, at most 16 renewals in
 * flight. Each renewal failure is reported, not thrown: a lost lock only means the broker
 * delivers that message again.
 */
export function startBatchLockRenewal<T extends { settler: MessageSettler }>(
  items: readonly T[],
  clock: Clock,
  intervalMs: number,
  onError: (item: T, err: unknown) => void,
): () => void {
  let stopped = false;
  let inFlight = false;
  const cancel = clock.every(intervalMs, () => {
    if (stopped || inFlight) return;
    inFlight = true;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (!stopped && next < items.length) {
        const item = items[next++];
        await item.settler.renewLock().catch((err: unknown) => onError(item, err));
      }
    };
    void Promise.all(Array.from({ length: Math.min(16, items.length) }, worker)).finally(() => {
      inFlight = false;
    });
  });
  return () => {
    stopped = true;
    cancel();
  };
}
