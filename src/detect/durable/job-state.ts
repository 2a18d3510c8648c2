/**
 * The `JobState` entity's logic: the set of job names some orchestration is running. Pure, so
 * the Durable entity (functions/JobState.ts) and the local driver apply the very same rules.
 *
 * Operations (input: a job name; every operation returns a boolean):
 * - `InProgress(name)`: whether the job is in the set.
 * - `Add(name)`: adds it; false when it was already there (another orchestration won the race
 *   between its own `InProgress` and `Add`, so the caller must skip the job).
 * - `Remove(name)`: removes it; false when it was not there.
 */

export const JOB_STATE_OPERATIONS = ['InProgress', 'Add', 'Remove'] as const;
export type JobStateOperation = (typeof JOB_STATE_OPERATIONS)[number];

/** The entity state: job names in progress, in the order they were added. */
export type JobState = string[];

export interface JobStateStep {
  state: JobState;
  result: boolean;
}

/**
 * Applies one operation to a state (not modified; a new state is returned).
 * @throws Error for an unknown operation or an input that is not a job name (the entity
 *   operation fails, and so does the orchestration's call).
 */
export function applyJobStateOperation(state: readonly string[] | undefined, operation: string | undefined, input: unknown): JobStateStep {
  const current = sanitizeState(state);
  if (!isJobStateOperation(operation)) {
    throw new Error(`JobState: unknown operation ${JSON.stringify(operation ?? null)} (expected InProgress, Add or Remove)`);
  }
  if (typeof input !== 'string' || input.trim() === '') {
    throw new Error(`JobState.${operation} input: expected a job name, got ${JSON.stringify(input ?? null)}`);
  }
  const present = current.includes(input);
  switch (operation) {
    case 'InProgress':
      return { state: current, result: present };
    case 'Add':
      return present ? { state: current, result: false } : { state: [...current, input], result: true };
    case 'Remove':
      return { state: current.filter((name) => name !== input), result: present };
  }
}

export function isJobStateOperation(operation: unknown): operation is JobStateOperation {
  return typeof operation === 'string' && (JOB_STATE_OPERATIONS as readonly string[]).includes(operation);
}

/** A stored state that is not a list of names (hand-edited, older format) counts as empty. */
function sanitizeState(state: readonly unknown[] | undefined): JobState {
  if (!Array.isArray(state)) return [];
  return state.filter((name): name is string => typeof name === 'string');
}
