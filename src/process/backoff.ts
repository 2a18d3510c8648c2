/**
 * The wait before retrying a redelivered message, as the spec sets it: `DeliveryCount² · 1000 ms`
 * once a message comes back (delivery 2 → 4 s, 3 → 9 s, …, 10 → 100 s). The lock is renewed
 * meanwhile, so the wait never costs the lock.
 */
export function deliveryBackoffMs(deliveryCount: number, unitMs = 1000): number {
  if (!Number.isFinite(deliveryCount) || deliveryCount <= 1) return 0;
  return deliveryCount * deliveryCount * unitMs;
}
