import type { MoverReport } from '../../../src/mover/report';
import { formatReport } from '../../../src/mover/report-text';

const base: MoverReport = {
  mode: 'dry-run',
  source: 'sbqnormal/$deadletterqueue',
  bus: 'local bus /data/bus.sqlite',
  rules: { file: 'rules.yaml', count: 2 },
  snapshot: { messages: 4, inScope: 4, firstSequence: '3', lastSequence: '9', truncatedAtMax: false },
  groups: [
    { action: 'Resubmit', decision: 'rule', rule: 'timeouts', ruleIndex: 0, target: 'sbqnormal', deadLetterReason: 'MaxDeliveryCountExceeded', errorMessage: 'timeout after <n> ms', count: 2, oldest: '2026-01-01T00:00:00.000Z', newest: '2026-01-02T00:00:00.000Z', sampleMessageIds: ['a', 'b'] },
    { action: 'Skip', decision: 'superseded', rule: 'timeouts', ruleIndex: 0, deadLetterReason: 'MaxDeliveryCountExceeded', errorMessage: 'timeout after <n> ms', count: 1, oldest: '2026-01-01T00:00:00.000Z', newest: '2026-01-01T00:00:00.000Z', sampleMessageIds: ['c'] },
    { action: 'None', decision: 'noRule', errorMessage: '(no error message)', count: 1, oldest: '2026-01-03T00:00:00.000Z', newest: '2026-01-03T00:00:00.000Z', sampleMessageIds: ['d'] },
  ],
  planned: { resubmit: 2, skip: 1, none: 1, byTarget: { sbqnormal: 2 } },
  problems: [],
};

describe('formatReport', () => {
  it('a dry run: sections by outcome and rule, groups by reason and error, then what --apply would do', () => {
    expect(formatReport(base)).toEqual([
      'Dry run: nothing is changed (add --apply to act).',
      'Source:   sbqnormal/$deadletterqueue on local bus /data/bus.sqlite',
      'Rules:    rules.yaml (2 rules)',
      'Snapshot: 4 messages, sequence 3–9; 4 in scope',
      '',
      'Resubmit → sbqnormal, rule "timeouts" (rules[0]): 2',
      '      2  [MaxDeliveryCountExceeded] timeout after <n> ms',
      '         oldest 2026-01-01T00:00:00.000Z  newest 2026-01-02T00:00:00.000Z',
      '         e.g. a, b',
      '',
      'Skip, superseded by a newer change of the same record, rule "timeouts" (rules[0]): 1',
      '      1  [MaxDeliveryCountExceeded] timeout after <n> ms',
      '         oldest 2026-01-01T00:00:00.000Z  newest 2026-01-01T00:00:00.000Z',
      '         e.g. c',
      '',
      'None, no rule matched: 1',
      '      1  (no error message)',
      '         oldest 2026-01-03T00:00:00.000Z  newest 2026-01-03T00:00:00.000Z',
      '         e.g. d',
      '',
      '--apply would: resubmit 2 (sbqnormal 2), remove 1, leave 1.',
    ]);
  });

  it('an applied run ends with what was done and every failure', () => {
    const lines = formatReport({
      ...base,
      mode: 'apply',
      groups: [],
      results: {
        resubmitted: 1,
        skipped: 1,
        failed: 1,
        released: 1,
        interrupted: false,
        failures: [{ messageId: 'b', sequenceNumber: '4', error: 'not received' }],
        releaseErrors: [],
      },
    });
    expect(lines.slice(0, 1)).toEqual(['Applied.']);
    expect(lines.slice(-3)).toEqual([
      'Planned: resubmit 2 (sbqnormal 2), remove 1, leave 1.',
      'Done: resubmitted 1, removed 1, failed 1; 1 other message received and released untouched.',
      '  failed: b (#4): not received',
    ]);
  });

  it('an empty queue', () => {
    const lines = formatReport({ ...base, snapshot: { messages: 0, inScope: 0, truncatedAtMax: false }, groups: [], planned: { resubmit: 0, skip: 0, none: 0, byTarget: {} } });
    expect(lines).toContain('Snapshot: 0 messages; 0 in scope');
    expect(lines.at(-1)).toBe('--apply would: resubmit 0, remove 0, leave 0.');
  });
});
