/**
 * The `JobState` entity's logic: the jobs some orchestration is running, each held under a
 * lease. Pure, so the Durable entity (functions/JobState.ts) and the local driver apply the very
 * same rules.
 *
 * Why a lease: an orchestration that is terminated (or fails outside its `finally`) never calls
 * `Remove`, and a plain set would then hold its job forever: no run would ever start it again.
 * An entry therefore records its owner (the orchestration's instance id) and when the owner last
 * renewed it; after {@link JOB_LEASE_MS} without a renewal another orchestration may take the job
 * over. A running orchestration renews long before that (see get-changes-orchestration.ts).
 *
 * Operations (every operation returns a boolean). The input is a `JobStateRequest` (durable-contract.ts), or a
 * job name alone as orchestrations before the lease sent it (then it is held without expiry):
 * - `InProgress`: whether the job is held by a lease that has not expired at `at`.
 * - `Add`: takes the job for `owner`; false when another lease on it is still live (another
 *   orchestration won the race between its own `InProgress` and `Add`: the caller skips the job).
 * - `Renew`: extends `owner`'s lease to `at`; false when the job is not held by `owner` (the lease
 *   expired and another orchestration took it over: the caller must stop the job).
 * - `Remove`: releases the job; with an `owner`, only that owner's lease (a stale orchestration
 *   finishing late must not release the job its successor holds). True when it was released.
 */

import { parseJobStateRequest } from './durable-payloads';

const JOB_STATE_OPERATIONS = ['InProgress', 'Add', 'Renew', 'Remove'] as const;
type JobStateOperation = (typeof JOB_STATE_OPERATIONS)[number];

/**
 * How long a lease holds without renewal: one hour. Far above one activity call (a page of the
 * job's `pageSize` records, else `MAX_BATCH_SIZE`, bounded by the Functions timeout), so a live run never loses it;
 * short enough that a terminated run's job runs again the same hour.
 */
export const JOB_LEASE_MS = 60 * 60_000;

/** One held job. `renewedAt` is ISO 8601; empty for an entry stored before leases (expired). */
export interface JobLease {
  job: string;
  owner: string;
  renewedAt: string;
}

/** The entity state: the held jobs, in the order they were taken. */
export type JobState = JobLease[];

export interface JobStateStep {
  state: JobState;
  result: boolean;
}

/**
 * Applies one operation to a state (not modified; a new state is returned).
 * @throws Error for an unknown operation or an input without a job name (the entity operation
 *   fails, and so does the orchestration's call).
 */
export function applyJobStateOperation(state: readonly unknown[] | undefined, operation: string | undefined, input: unknown): JobStateStep {
  const current = sanitizeState(state);
  if (!isJobStateOperation(operation)) {
    throw new Error(`JobState: unknown operation ${JSON.stringify(operation ?? null)} (expected ${JOB_STATE_OPERATIONS.join(', ')})`);
  }
  const request = parseJobStateRequest(operation, input);
  const at = request.at === undefined ? undefined : Date.parse(request.at);
  const entry = current.find((lease) => lease.job === request.job);
  const live = entry !== undefined && (at === undefined || !expired(entry, at));
  const others = () => current.filter((lease) => lease.job !== request.job);
  switch (operation) {
    case 'InProgress':
      return { state: current, result: live };
    case 'Add': {
      if (live) return { state: current, result: false };
      const taken: JobLease = { job: request.job, owner: request.owner ?? '', renewedAt: request.at ?? '' };
      return { state: [...others(), taken], result: true };
    }
    case 'Renew': {
      if (!entry || entry.owner !== (request.owner ?? '')) return { state: current, result: false };
      return { state: current.map((lease) => (lease === entry ? { ...lease, renewedAt: request.at ?? lease.renewedAt } : lease)), result: true };
    }
    case 'Remove': {
      if (!entry || (request.owner !== undefined && entry.owner !== request.owner)) return { state: current, result: false };
      return { state: others(), result: true };
    }
  }
}

/** Whether `lease` has run out at `at` (ms). An entry without a time (stored before leases) has. */
export function expired(lease: JobLease, at: number): boolean {
  const renewed = Date.parse(lease.renewedAt);
  return !Number.isFinite(renewed) || at - renewed >= JOB_LEASE_MS;
}

function isJobStateOperation(operation: unknown): operation is JobStateOperation {
  return typeof operation === 'string' && (JOB_STATE_OPERATIONS as readonly string[]).includes(operation);
}

/**
 * Reads a stored state. A name alone (the state before leases) becomes a lease without a time,
 * which has expired: a job stuck there by a terminated orchestration runs again. Anything else
 * that is not a lease is dropped.
 */
function sanitizeState(state: readonly unknown[] | undefined): JobState {
  if (!Array.isArray(state)) return [];
  const leases: JobState = [];
  for (const item of state) {
    if (typeof item === 'string') leases.push({ job: item, owner: '', renewedAt: '' });
    else if (isLease(item)) leases.push({ job: item.job, owner: item.owner, renewedAt: item.renewedAt });
  }
  return leases;
}

function isLease(item: unknown): item is JobLease {
  const lease = item as Partial<JobLease> | null;
  return typeof lease === 'object' && lease !== null && typeof lease.job === 'string' && typeof lease.owner === 'string' && typeof lease.renewedAt === 'string';
}
