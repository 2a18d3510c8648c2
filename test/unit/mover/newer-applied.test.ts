import type { BusMessage } from '../../../src/bus/message-bus';
import { parseRulesText } from '../../../src/config/requeue-rules-schema';
import { JobActionType } from '../../../src/model/job';
import { createQueueMessage, serializeQueueMessage } from '../../../src/model/queue-message';
import { findNewerApplied } from '../../../src/mover/applied-check';
import { markNewerApplied, planMessages } from '../../../src/mover/plan';
import { buildReport } from '../../../src/mover/report';
import { formatReport } from '../../../src/mover/report-text';
import { targetResolver } from '../../../src/mover/resubmit-target';
import type { AppliedVersionReader } from '../../../src/storage/applied-version-store';
import { DEFAULT_QUEUES } from '../../../src/platform/queue-topology';

const NOW = new Date('2026-05-01T12:00:00Z');
const rules = parseRulesText('rules:\n  - { name: fixed, match: { errorMessage: CHECK }, action: Resubmit }\n', 'rules.yaml');

let seq = 0;
function message(id: string, changeTracker: string): BusMessage {
  seq++;
  const body = createQueueMessage({ jobName: 'contacts', action: JobActionType.NewUpdate, sourceKey: id, targetKey: { id }, changeTracker, fields: {} });
  return {
    body: new Uint8Array(Buffer.from(serializeQueueMessage(body))),
    messageId: `m${seq}`,
    applicationProperties: { ErrorMessage: 'CHECK constraint failed', JobName: 'contacts', SourceKey: id, ChangeTracker: changeTracker },
    sequenceNumber: String(seq),
    deliveryCount: 1,
    enqueuedTime: new Date('2026-05-01T00:00:00Z'),
    expiresAt: new Date('2026-05-15T00:00:00Z'),
  };
}

/** Applied: A at 10, nothing for B. */
const reader: AppliedVersionReader = {
  newerApplied: async (changes) =>
    changes.map((c) =>
      c.targetKey.id === 'A' && c.changeTracker < '2026-05-01T10:00:00Z' ? { jobName: 'contacts', action: 'NewUpdate', changeTracker: '2026-05-01T10:00:00.0000000Z', type: 'datetime' } : undefined,
    ),
};

async function planned(include: boolean) {
  seq = 0;
  const snapshot = [message('A', '2026-05-01T09:00:00Z'), message('B', '2026-05-01T09:00:00Z')];
  const plan = planMessages(snapshot, { rules, now: NOW, targets: targetResolver({ queues: DEFAULT_QUEUES, source: 'sbqnormal' }) });
  markNewerApplied(plan, await findNewerApplied(plan, reader, undefined), include);
  return { plan, report: buildReport({ mode: 'dry-run', source: 'sbqnormal/$deadletterqueue', bus: 'local', rules: { file: 'rules.yaml', count: 1 }, snapshot: { peeked: snapshot, inScope: snapshot, truncated: false, lastSequence: 2n }, plan }) };
}

describe('the mover and newer applied changes', () => {
  it('leaves a Resubmit whose record has a newer applied change in place, and says so', async () => {
    const { plan, report } = await planned(false);
    expect(plan.map((p) => [p.message.messageId, p.action, p.decision, p.target])).toEqual([
      ['m1', 'None', 'newerApplied', undefined],
      ['m2', 'Resubmit', 'rule', 'sbqnormal'],
    ]);
    expect(plan[0].newerApplied).toBe('superseded: a newer change of this record (change tracker 2026-05-01T10:00:00.0000000Z, job "contacts") was applied since');
    const text = formatReport(report);
    expect(text).toContain('None, superseded: a newer change of the record was applied since (left in place; --include-superseded resubmits it), rule "fixed" (rules[0]): 1');
    expect(text).toContain('--apply would: resubmit 1 (sbqnormal 1), remove 0, leave 1 (1 superseded).');
    expect(report.planned).toMatchObject({ superseded: 1 });
  });

  it('with --include-superseded resubmits it, marked forced', async () => {
    const { plan, report } = await planned(true);
    expect(plan.map((p) => [p.action, p.decision])).toEqual([
      ['Resubmit', 'forced'],
      ['Resubmit', 'rule'],
    ]);
    expect(formatReport(report)).toContain('--apply would: resubmit 2 (sbqnormal 2), remove 0, leave 0 (1 superseded but forced).');
  });
});
