import { ConfigError } from '../platform/errors';
import type { Job } from '../model/job';
import { JobActionType } from '../model/job';
import type { Mapping } from '../model/mapping';
import { createQueueMessage, type JsonValue, type QueueMessage } from '../model/queue-message';
import { joinSourceKey, splitSourceKey } from '../model/source-key';

/**
 * Builds the message for a response job (docs/architecture.md, Response jobs): job A wrote a record
 * into its target, which returned generated fields; the response job B writes them back into A's
 * source record. B's target key fields are matched position by position with A's source key
 * values, because B's target *is* A's source record.
 */
export function buildResponseMessage(args: {
  original: QueueMessage;
  originalMapping: Mapping;
  responseJob: Job;
  responseJobMapping: Mapping;
  returned: Record<string, JsonValue>;
  now: Date;
}): QueueMessage | undefined {
  const { original, originalMapping, responseJob, responseJobMapping, returned, now } = args;
  const pairs = originalMapping.responseMapping ?? [];
  if (pairs.length === 0) return undefined;
  const sourceKeyValues = splitSourceKey(original.sourceKey);
  const targetKeyFields = responseJobMapping.target.key;
  if (targetKeyFields.length !== sourceKeyValues.length) {
    throw new ConfigError(
      `response job "${responseJob.name}": mapping "${responseJobMapping.name}" has ${targetKeyFields.length} target key field(s) but job "${original.jobName}" has ${sourceKeyValues.length} source key value(s)`,
    );
  }
  const targetKey: Record<string, JsonValue> = {};
  targetKeyFields.forEach((field, i) => (targetKey[field] = sourceKeyValues[i]));
  const fields: Record<string, JsonValue> = { ...targetKey };
  for (const { from, to } of pairs) fields[to] = returned[from] ?? null;
  return createQueueMessage({
    jobName: responseJob.name,
    action: JobActionType.NewUpdate,
    sourceKey: joinSourceKey(Object.values(original.targetKey)),
    targetKey,
    changeTracker: now.toISOString(),
    fields,
    correlationId: original.correlationId,
    detectedAt: now.toISOString(),
  });
}
