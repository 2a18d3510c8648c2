import { canonicalJson } from '../../model/fields-hash';
import { JobActionType } from '../../model/job';
import { parseWatermarkType, WatermarkValue, type WatermarkType } from '../../model/watermark-value';
import type { Work } from './triage';

/**
 * Keeps one message per record of a job in a batch: the newest change (by the job's watermark
 * type; on a tie the higher sequence number, the later send) wins, whatever its action — a delete
 * after an upsert stays a delete, an upsert after a delete becomes the upsert. The others are
 * `superseded`: applying them would only be overwritten within the same batch. Only within one
 * job: two jobs may write different columns of one record. Actions are never coalesced (invoking
 * one is not a state that the next replaces), nor messages whose trackers cannot be compared.
 */
export function coalesce(work: readonly Work[]): { winners: Work[]; superseded: Work[] } {
  const newest = new Map<string, Work>();
  const superseded: Work[] = [];
  const winners: Work[] = [];
  for (const w of work) {
    const type = w.message.action === JobActionType.InvokeAction ? undefined : parseWatermarkType(w.job.watermark.type);
    if (!type) {
      winners.push(w);
      continue;
    }
    const key = recordKey(w);
    const held = newest.get(key);
    if (!held) {
      newest.set(key, w);
    } else if (isNewer(type, w, held)) {
      superseded.push(held);
      newest.set(key, w);
    } else {
      superseded.push(w);
    }
  }
  winners.push(...newest.values());
  winners.sort((a, b) => a.index - b.index);
  return { winners, superseded };
}

function recordKey(w: Work): string {
  const values = w.mapping.target.key.map((field) => w.message.targetKey[field] ?? null);
  return `${w.job.name}\u0000${canonicalJson(values)}`;
}

function isNewer(type: WatermarkType, candidate: Work, held: Work): boolean {
  let order: number;
  try {
    order = WatermarkValue.compare(type, candidate.message.changeTracker, held.message.changeTracker);
  } catch {
    order = 0;
  }
  if (order !== 0) return order > 0;
  return compareSequence(candidate.item.message.sequenceNumber, held.item.message.sequenceNumber) > 0;
}

/** Sequence numbers are non-negative integers as text (64-bit exact): longer is larger. */
function compareSequence(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
