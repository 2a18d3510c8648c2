import type { ApplicationProperties, BusMessage } from '../../../src/bus/message-bus';
import { withoutErrorProperties } from '../../../src/bus/message-properties';
import { planMessages } from '../../../src/mover/plan';
import { formatReport } from '../../../src/mover/report-text';
import { buildReport } from '../../../src/mover/report';
import { REQUEUE_COUNT, requeueCountOf, resubmittedProperties } from '../../../src/mover/resubmission';
import { targetResolver } from '../../../src/mover/resubmit-target';
import { parseRulesText } from '../../../src/config/requeue-rules-schema';
import { DEFAULT_QUEUES } from '../../../src/platform/queue-topology';

/** The requeue count a message carries, and the scheduled requeue's cap on it. */
const NOW = new Date('2026-05-01T12:00:00Z');
const rules = parseRulesText('rules:\n  - { name: parked, match: { errorType: TransitiveError }, action: Resubmit }\n', 'rules.yaml');
const targets = targetResolver({ queues: DEFAULT_QUEUES, source: 'sbqtransitivenormal' });
const source = { queue: 'sbqtransitivenormal' };

let seq = 0;
function parked(props: Record<string, string | number>): BusMessage {
  seq++;
  return {
    body: new Uint8Array(Buffer.from('{}')),
    messageId: `m${seq}`,
    applicationProperties: { ErrorType: 'TransitiveError', ErrorMessage: 'a referenced record is missing', JobName: 'contacts', ...props },
    sequenceNumber: String(seq),
    deliveryCount: 1,
    enqueuedTime: new Date('2026-05-01T00:00:00Z'),
    expiresAt: new Date('2026-05-15T00:00:00Z'),
  };
}

describe('requeue count', () => {
  it('is not an error property: withoutErrorProperties keeps it', () => {
    expect(withoutErrorProperties({ ErrorMessage: 'x', ErrorType: 'TransitiveError', Attempt: 3, [REQUEUE_COUNT]: 2, JobName: 'j' })).toEqual({ [REQUEUE_COUNT]: 2, JobName: 'j' });
  });

  it('is raised by one for the scheduled requeue and kept as it is by a person’s resubmission', () => {
    const props = { ErrorMessage: 'x', [REQUEUE_COUNT]: 2, JobName: 'j' };
    expect(resubmittedProperties(props, source, '7', NOW, true)).toMatchObject({ [REQUEUE_COUNT]: 3, JobName: 'j' });
    expect(resubmittedProperties(props, source, '7', NOW)).toMatchObject({ [REQUEUE_COUNT]: 2 });
    expect(resubmittedProperties({ JobName: 'j' }, source, '7', NOW, true)).toMatchObject({ [REQUEUE_COUNT]: 1 });
    expect(resubmittedProperties({ JobName: 'j' }, source, '7', NOW)).not.toHaveProperty(REQUEUE_COUNT);
  });

  it('reads 0 for a missing or malformed count (a text, as a broker may hand it back, counts)', () => {
    const cases: ApplicationProperties[] = [{}, { [REQUEUE_COUNT]: 'x' }, { [REQUEUE_COUNT]: -1 }, { [REQUEUE_COUNT]: 1.5 }, { [REQUEUE_COUNT]: '4' }];
    expect(cases.map((properties) => requeueCountOf(properties))).toEqual([0, 0, 0, 0, 4]);
  });
});

describe('the cap', () => {
  beforeEach(() => {
    seq = 0;
  });
  const summary = (plan: ReturnType<typeof planMessages>) => plan.map((p) => [p.message.messageId, p.action, p.decision]);

  it('leaves a message requeued maxRequeues times (capped); below the cap it is resubmitted; without a cap nothing is capped', () => {
    const messages = [parked({ SourceKey: 'a' }), parked({ SourceKey: 'b', [REQUEUE_COUNT]: 2 }), parked({ SourceKey: 'c', [REQUEUE_COUNT]: 3 })];
    expect(summary(planMessages(messages, { rules, now: NOW, targets, maxRequeues: 3 }))).toEqual([
      ['m1', 'Resubmit', 'rule'],
      ['m2', 'Resubmit', 'rule'],
      ['m3', 'None', 'capped'],
    ]);
    expect(summary(planMessages(messages, { rules, now: NOW, targets })).map((s) => s[2])).toEqual(['rule', 'rule', 'rule']);
  });

  it('de-duplicates first: an older change of a capped record is still removed as superseded', () => {
    const messages = [parked({ SourceKey: 'a', ChangeTracker: '1' }), parked({ SourceKey: 'a', ChangeTracker: '2', [REQUEUE_COUNT]: 5 })];
    expect(summary(planMessages(messages, { rules, now: NOW, targets, maxRequeues: 5 }))).toEqual([
      ['m1', 'Skip', 'superseded'],
      ['m2', 'None', 'capped'],
    ]);
  });

  it('shows capped messages as their own group in the report', () => {
    const plan = planMessages([parked({ SourceKey: 'a', [REQUEUE_COUNT]: 1 })], { rules, now: NOW, targets, maxRequeues: 1 });
    const report = buildReport({ mode: 'dry-run', source: 'sbqtransitivenormal', bus: 'local bus', rules: { file: 'rules.yaml', count: 1 }, snapshot: { peeked: plan.map((p) => p.message), inScope: plan.map((p) => p.message), lastSequence: 1n, truncated: false }, plan });
    expect(report.groups).toMatchObject([{ action: 'None', decision: 'capped', rule: 'parked', count: 1 }]);
    expect(formatReport(report).join('\n')).toContain('None, requeued too often by the schedule (left for a person), rule "parked" (rules[0])');
  });
});
