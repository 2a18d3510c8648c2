import type { HighwaterConfig } from '../../model/config';
import type { PushFormat } from '../../model/push';
import { RENEW_BEFORE_MS, type KnownSubscription } from '../../push/subscription-keeper';

/** A job that takes pushed changes, as the status page shows it. */
export interface PushStatus {
  job: string;
  format: PushFormat;
  /** The route notifications are posted to on this host (`/api/hooks/{job}`). */
  route: string;
  /** Business Central jobs: what the subscription keeper knows; null before its first run. Absent for other formats. */
  subscription?: SubscriptionStatus | null;
}

/** One Business Central subscription as the keeper last saw it (times ISO 8601 UTC, null: not known). */
interface SubscriptionStatus {
  resource: string | null;
  subscriptionId: string | null;
  expiresAt: string | null;
  /** When the keeper last created or renewed it. */
  lastRenewedAt: string | null;
  lastCheckedAt: string;
  /** `created`, `renewed`, `kept` (not due) or `failed`. */
  lastAction: KnownSubscription['lastAction'];
  lastError: string | null;
  lastErrorAt: string | null;
  /**
   * Why it needs a look: expired, expiring within the renewal margin without a renewal, or the
   * last run failed. Absent when it is fine.
   */
  problem?: string;
}

/**
 * The jobs with `push`, in configuration order, with the Business Central subscriptions the
 * keeper knows (`known`).
 */
export function pushStatuses(config: Pick<HighwaterConfig, 'jobs'>, known: readonly KnownSubscription[], now: Date): PushStatus[] {
  const byJob = new Map(known.map((k) => [k.job, k]));
  return config.jobs.flatMap((job): PushStatus[] => {
    if (!job.push) return [];
    const base = { job: job.name, format: job.push.format, route: `/api/hooks/${encodeURIComponent(job.name)}` };
    if (job.push.format !== 'businesscentral') return [base];
    const k = byJob.get(job.name);
    return [{ ...base, subscription: k ? subscriptionStatus(k, now) : null }];
  });
}

function subscriptionStatus(k: KnownSubscription, now: Date): SubscriptionStatus {
  const problem = subscriptionProblem(k, now);
  return {
    resource: k.resource,
    subscriptionId: k.subscriptionId,
    expiresAt: k.expirationDateTime,
    lastRenewedAt: k.lastRenewedAt,
    lastCheckedAt: k.lastCheckedAt,
    lastAction: k.lastAction,
    lastError: k.lastError,
    lastErrorAt: k.lastErrorAt,
    ...(problem ? { problem } : {}),
  };
}

function subscriptionProblem(k: KnownSubscription, now: Date): string | undefined {
  const expires = k.expirationDateTime ? Date.parse(k.expirationDateTime) : NaN;
  const failed = k.lastAction === 'failed' ? `the last renewal run failed: ${k.lastError ?? 'no error text'}` : undefined;
  if (k.subscriptionId === null) return failed ?? 'no subscription';
  if (Number.isFinite(expires) && expires <= now.getTime()) return `expired at ${k.expirationDateTime}: Business Central sends no notifications${failed ? `; ${failed}` : ''}`;
  if (failed) return failed;
  // The keeper renews within this margin; past it at the last check means the renewal is overdue.
  if (Number.isFinite(expires) && expires - now.getTime() <= RENEW_BEFORE_MS && k.lastAction === 'kept') return `expires at ${k.expirationDateTime} and was not renewed`;
  return undefined;
}
