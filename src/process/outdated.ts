import type { Job } from '../model/job';
import type { Mapping } from '../model/mapping';
import type { QueueMessage } from '../model/queue-message';
import { parseWatermarkType, WatermarkValue } from '../model/watermark-value';
import type { TargetConnector } from '../../connectors/base/target-connector';

/**
 * Skip-outdated (docs/architecture.md, Processing): the change is outdated when the target record's version is
 * newer than the message's change tracker, compared by the job's watermark type. A target that
 * cannot tell (no version) never makes a message outdated.
 */
export async function isOutdated(target: TargetConnector, message: QueueMessage, mapping: Mapping, job: Job): Promise<boolean> {
  const type = parseWatermarkType(job.watermark.type);
  if (!type) return false;
  const version = await target.getTargetVersion(message, mapping);
  if (version === null || version === undefined) return false;
  const targetVersion = WatermarkValue.canonicalize(type, version);
  return WatermarkValue.compare(type, message.changeTracker, targetVersion) < 0;
}
