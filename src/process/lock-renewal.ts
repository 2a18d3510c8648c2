import type { Clock } from '../model/clock';
import type { MessageSettler } from './message-settler';

/**
 * Renews a message lock every `intervalMs` until stopped. Renewal failures are reported, not
 * thrown: a lost lock only means the broker will deliver the message again.
 */
export function startLockRenewal(
  settler: MessageSettler,
  clock: Clock,
  intervalMs: number,
  onError: (err: unknown) => void,
): () => void {
  let stopped = false;
  let inFlight = false;
  const cancel = clock.every(intervalMs, () => {
    if (stopped || inFlight) return;
    inFlight = true;
    settler
      .renewLock()
      .catch(onError)
      .finally(() => {
        inFlight = false;
      });
  });
  return () => {
    stopped = true;
    cancel();
  };
}
