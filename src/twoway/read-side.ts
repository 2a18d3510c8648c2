import type { SourceConnector } from '../../connectors/base/source-connector';
import type { Job } from '../model/job';
import type { Mapping } from '../model/mapping';
import type { QueueMessage } from '../model/queue-message';
import { WatermarkValue } from '../model/watermark-value';

/** Every record of one side of a pair, as its job reads them. */
export interface SideRecords {
  records: QueueMessage[];
  /** Rows that could not become a message (`skipFailedRows`): they take no part. */
  skipped: number;
}

/**
 * Reads every record a pair job would send on a full run: its changes past the initial watermark
 * of its type, as a dry run reads them (a preview: nothing is claimed, sent or saved). Records
 * changed within the source's settle horizon are not read yet, exactly as on the job's first run.
 * @throws what `retrieveChanges` throws (`TransientError` for an outage, `ConfigError` for a
 *   mapping that does not fit the source).
 */
export async function readSide(source: SourceConnector, mapping: Mapping, job: Job, warn?: (message: string) => void): Promise<SideRecords> {
  const watermark = WatermarkValue.initialize(job.watermark.type, null, warn, job.name);
  const records: QueueMessage[] = [];
  let skipped = 0;
  for await (const page of source.retrieveChanges(mapping, job, watermark, { preview: true })) {
    records.push(...page.messages);
    skipped += page.skipped?.length ?? 0;
    // Advanced as detection advances it (never saved): a source may read it between pages.
    for (const change of [...page.timeStamps, ...(page.skipped ?? []), ...page.messages]) watermark.advance(change.changeTracker);
  }
  return { records, skipped };
}
