import * as df from 'durable-functions';
import { GET_CHANGES_ACTIVITY, type JobActivityResult } from '../src/detect/durable/durable-contract';
import { runGetChangesActivity } from '../src/detect/durable/get-changes-activity';
import { activityDependencies } from '../src/runtime/runtime-dependencies';
import { getRuntime } from './runtime-instance';

/** Reads one page of a job (its `pageSize`, else `MaxBatchSize` = 3 records) and sends its records in batches. */
export async function getChangesActivity(input: unknown): Promise<JobActivityResult> {
  return runGetChangesActivity(activityDependencies(await getRuntime()), input);
}

df.app.activity(GET_CHANGES_ACTIVITY, { handler: getChangesActivity });
