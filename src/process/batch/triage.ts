import { PermanentError } from '../../platform/errors';
import type { Job } from '../../model/job';
import type { Mapping } from '../../model/mapping';
import { deserializeQueueMessage, type QueueMessage } from '../../model/queue-message';
import type { ConfigLookup } from '../processing-dependencies';
import type { ReceivedItem } from '../received-item';
import { attemptOf } from './attempts';

/** A received message that names a known job and mapping: ready for its target. */
export interface Work {
  /** Position in the received batch (results keep that order). */
  readonly index: number;
  readonly item: ReceivedItem;
  readonly message: QueueMessage;
  readonly job: Job;
  readonly mapping: Mapping;
  /** See {@link attemptOf}. */
  readonly attempt: number;
}

/** A received message that can never be applied as it is. */
export interface Rejected {
  readonly index: number;
  readonly item: ReceivedItem;
  readonly error: unknown;
  /** Set when the body could be read. */
  readonly message?: QueueMessage;
}

/**
 * Sorts a received batch before any target is called: a malformed body, an unknown job or an
 * unknown mapping is rejected (dead-lettered at once by the caller: no retry makes it valid).
 */
export function triage(items: readonly ReceivedItem[], config: ConfigLookup): { work: Work[]; rejected: Rejected[] } {
  const work: Work[] = [];
  const rejected: Rejected[] = [];
  items.forEach((item, index) => {
    let message: QueueMessage | undefined;
    try {
      message = deserializeQueueMessage(item.message.body);
      const job = config.getJob(message.jobName);
      if (!job) throw new PermanentError(`unknown job "${message.jobName}"`);
      const mapping = config.getMapping(job.mapping);
      if (!mapping) throw new PermanentError(`job "${job.name}": unknown mapping "${job.mapping}"`);
      work.push({ index, item, message, job, mapping, attempt: attemptOf(item.message) });
    } catch (error) {
      rejected.push({ index, item, error, message });
    }
  });
  return { work, rejected };
}
