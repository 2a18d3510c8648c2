import type { Job } from '../model/job';
import { JobActionType } from '../model/job';
import type { Mapping } from '../model/mapping';
import type { QueueMessage } from '../model/queue-message';
import type { UnchangedCheck } from '../model/unchanged-check';
import type { CouplingStore } from './coupling-store';
import { fieldHash } from './field-hash';
import { heldKeys } from './match-holds';

/**
 * Detection's check of pair jobs (echo suppression): a change whose fields all hash to what the
 * coupling holds for its side did not change since that side was last in sync — most often it is
 * Highwater's own write coming back — and is not sent. Decided from the coupling's state, not
 * from timing; a record that is not coupled yet is sent, unless `highwater pairs match` holds it
 * as ambiguous (see `match-holds.ts`). Jobs that are not part of a pair go to `inner` (the
 * applied-hash check of `skipUnchanged`).
 */
export class PairEchoCheck implements UnchangedCheck {
  constructor(
    private readonly couplings: CouplingStore,
    private readonly getMapping: (name: string) => Mapping | undefined,
    private readonly inner?: UnchangedCheck,
  ) {}

  async unchanged(job: Job, messages: QueueMessage[]): Promise<Set<QueueMessage>> {
    if (!job.pair) return this.inner ? this.inner.unchanged(job, messages) : new Set();
    const result = new Set<QueueMessage>();
    const mapping = this.getMapping(job.mapping);
    const candidates = messages.filter((m) => m.action === JobActionType.NewUpdate);
    if (!mapping || candidates.length === 0) return result;
    const fields = comparedFields(job, mapping);
    const couplings = await this.couplings.getMany(job.pair.name, job.pair.side, [...new Set(candidates.map((m) => m.sourceKey))]);
    // Holds are few and rare: listed once per page, and only when a record is not coupled.
    const uncoupled = candidates.some((m) => !couplings.has(m.sourceKey));
    const held = uncoupled ? await heldKeys(this.couplings, job.pair.name, job.pair.side) : new Set<string>();
    for (const message of candidates) {
      const coupling = couplings.get(message.sourceKey);
      if (!coupling) {
        if (held.has(message.sourceKey)) result.add(message);
        continue;
      }
      const hashes = job.pair.side === 'a' ? coupling.hashA : coupling.hashB;
      if (fields.every(({ id, name }) => hashes[id] === fieldHash(message.fields[name]))) result.add(message);
    }
    return result;
  }
}

/**
 * The non-key fields a pair job sends, with their coupling id (the field's name on side a: the
 * source name for side a's job, the target name for side b's).
 */
function comparedFields(job: Job, mapping: Mapping): Array<{ id: string; name: string }> {
  const sourceKeys = new Set(mapping.source.key);
  const targetKeys = new Set(mapping.target.key);
  return mapping.fields
    .filter((f) => f.source !== undefined && !sourceKeys.has(f.source) && !targetKeys.has(f.target))
    .map((f) => ({ id: job.pair?.side === 'b' ? f.target : (f.source as string), name: f.target }));
}
