import * as df from 'durable-functions';
import type { EntityContext } from 'durable-functions';
import { JOB_STATE_ENTITY } from '../src/detect/durable/durable-contract';
import { applyJobStateOperation, type JobState } from '../src/detect/durable/job-state';

/** The `JobState` entity: `InProgress`, `Add`, `Renew`, `Remove` of a job lease (src/detect/durable/job-state.ts), each returning a boolean. */
export function jobState(context: EntityContext<JobState>): void {
  const step = applyJobStateOperation(context.df.getState(() => []), context.df.operationName, context.df.getInput<unknown>());
  context.df.setState(step.state);
  context.df.return(step.result);
}

df.app.entity(JOB_STATE_ENTITY, jobState);
