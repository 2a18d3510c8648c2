import type { BusMessage } from '../../../src/bus/message-bus';
import type { Job } from '../../../src/model/job';
import { planMessages } from '../../../src/mover/plan';
import { targetResolver } from '../../../src/mover/resubmit-target';
import { parseRulesText } from '../../../src/config/requeue-rules-schema';
import { DEFAULT_QUEUES } from '../../../src/platform/queue-topology';

const NOW = new Date('2026-05-01T12:00:00Z');
const rules = parseRulesText(
  `rules:
  - { name: timeouts, match: { errorMessage: timeout }, action: Resubmit }
  - { name: junk, match: { errorMessage: junk }, action: Skip }
`,
  'rules.yaml',
);

let seq = 0;
function message(props: Record<string, string>, body: object = {}): BusMessage {
  seq++;
  return {
    body: new Uint8Array(Buffer.from(JSON.stringify(body))),
    messageId: `m${seq}`,
    applicationProperties: props,
    sequenceNumber: String(seq),
    deliveryCount: 1,
    enqueuedTime: new Date('2026-05-01T00:00:00Z'),
    expiresAt: new Date('2026-05-15T00:00:00Z'),
  };
}

const fromWork = targetResolver({ queues: DEFAULT_QUEUES, source: 'sbqnormal' });
const summary = (plan: ReturnType<typeof planMessages>) => plan.map((p) => [p.message.messageId, p.action, p.decision, p.target ?? p.supersededBy ?? p.problem]);

describe('planMessages', () => {
  beforeEach(() => {
    seq = 0;
  });

  it('applies the first matching rule; no match is None', () => {
    const plan = planMessages(
      [message({ ErrorMessage: 'Timeout' }), message({ ErrorMessage: 'junk data' }), message({ ErrorMessage: 'other' }), message({})],
      { rules, now: NOW, targets: fromWork },
    );
    expect(summary(plan)).toEqual([
      ['m1', 'Resubmit', 'rule', 'sbqnormal'],
      ['m2', 'Skip', 'rule', undefined],
      ['m3', 'None', 'noRule', undefined],
      ['m4', 'None', 'noRule', undefined],
    ]);
  });

  it('keeps the newest change per job and SourceKey; equal trackers keep the later message', () => {
    const t = (key: string, ct: string, job = 'j') => message({ ErrorMessage: 'timeout', JobName: job, SourceKey: key, ChangeTracker: ct });
    const plan = planMessages(
      [t('a', '9'), t('a', '10'), t('b', '2026-01-01T00:00:00Z'), t('b', '2026-01-01T00:00:00Z'), t('a', '1', 'other'), message({ ErrorMessage: 'junk', JobName: 'j', SourceKey: 'a', ChangeTracker: '99' })],
      { rules, now: NOW, targets: fromWork },
    );
    expect(summary(plan)).toEqual([
      ['m1', 'Skip', 'superseded', 'm2'],
      ['m2', 'Resubmit', 'rule', 'sbqnormal'],
      ['m3', 'Skip', 'superseded', 'm4'],
      ['m4', 'Resubmit', 'rule', 'sbqnormal'],
      ['m5', 'Resubmit', 'rule', 'sbqnormal'],
      ['m6', 'Skip', 'rule', undefined], // a Skip never supersedes a Resubmit
    ]);
  });

  it('reads job, SourceKey and ChangeTracker from the body when the properties lack them', () => {
    const body = (ct: string) => ({ jobName: 'j', sourceKey: 'a', changeTracker: ct });
    const plan = planMessages([message({ ErrorMessage: 'timeout' }, body('2026-01-02')), message({ ErrorMessage: 'timeout' }, body('2026-01-01'))], {
      rules,
      now: NOW,
      targets: fromWork,
    });
    expect(summary(plan)).toEqual([
      ['m1', 'Resubmit', 'rule', 'sbqnormal'],
      ['m2', 'Skip', 'superseded', 'm1'],
    ]);
  });

  it('orders trackers by the job watermark type when known', () => {
    const t = (ct: string) => message({ ErrorMessage: 'timeout', JobName: 'j', SourceKey: 'a', ChangeTracker: ct });
    const plan = planMessages([t('10'), t('9')], { rules, now: NOW, targets: fromWork, watermarkTypeOf: () => 'string' });
    expect(summary(plan).map((row) => row[1])).toEqual(['Skip', 'Resubmit']);
  });

  it('targets: transitive → work queue of its priority; ignored → the job priority; problems leave the message', () => {
    const transitive = planMessages([message({ ErrorMessage: 'timeout' })], { rules, now: NOW, targets: targetResolver({ queues: DEFAULT_QUEUES, source: 'sbqtransitivelow' }) });
    expect(transitive[0].target).toBe('sbqlow');

    const jobs = new Map([['j', { name: 'j', priority: 'high' } as Job]]);
    const ignored = targetResolver({ queues: DEFAULT_QUEUES, source: 'sbqignored', jobs, configDir: 'cfg' });
    const plan = planMessages([message({ ErrorMessage: 'timeout', JobName: 'j' }), message({ ErrorMessage: 'timeout', JobName: 'gone' }), message({ ErrorMessage: 'timeout' })], {
      rules,
      now: NOW,
      targets: ignored,
    });
    expect(summary(plan)).toEqual([
      ['m2', 'Resubmit', 'rule', 'sbqhigh'],
      ['m3', 'None', 'noTarget', 'job "gone" is not in the configuration cfg'],
      ['m4', 'None', 'noTarget', 'the message names no job (no JobName property, no jobName in its body): pass --to QUEUE'],
    ]);
  });

  it('--to must be a work queue', () => {
    expect(() => targetResolver({ queues: DEFAULT_QUEUES, source: 'sbqignored', to: 'sbqignored' })).toThrow(
      '--to: "sbqignored" is not a work queue (expected one of sbqhigh, sbqnormal, sbqlow)',
    );
    expect(targetResolver({ queues: DEFAULT_QUEUES, source: 'sbqignored', to: 'sbqlow' }).resolve(undefined)).toEqual({ queue: 'sbqlow' });
  });
});
