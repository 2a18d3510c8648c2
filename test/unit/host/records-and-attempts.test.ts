import { HostStats } from '../../../src/host/host-stats';
import { formatSummary, progressLine } from '../../../src/host/progress';
import { buildStatus } from '../../../src/host/status/build-status';
import { renderStatusPage } from '../../../src/host/status/status-html';
import { DEFAULT_QUEUES } from '../../../src/platform/queue-topology';
import { NOW, statusFixture } from './status/status-fixture';

/**
 * The numbers an operator reads count messages, each once by how it ended; attempts are shown as
 * attempts. 125 messages retried 3 times and then dead-lettered once said `Failed 500`; 133
 * messages of which 25 needed a second try said "158 processed".
 */
function stats(): HostStats {
  const s = new HostStats(NOW, 1000);
  const at = (queue: string, id: string, outcome: 'Success' | 'Failed', disposition: 'completed' | 'retried' | 'deadLettered') =>
    s.recordProcessed({ at: NOW, queue, jobName: 'crm-contacts-to-erp', outcome, disposition, messageId: id, ...(outcome === 'Failed' ? { error: 'customer 7: 400 invalid vat' } : {}) });
  for (let i = 0; i < 125; i++) {
    for (let attempt = 1; attempt <= 3; attempt++) at('sbqnormal', `bad-${i}`, 'Failed', 'retried');
    at('sbqnormal', `bad-${i}`, 'Failed', 'deadLettered');
  }
  for (let i = 0; i < 133; i++) {
    if (i < 25) at('sbqhigh', `ok-${i}`, 'Failed', 'retried');
    at('sbqhigh', `ok-${i}`, 'Success', 'completed');
  }
  return s;
}

describe('records and attempts', () => {
  it('the progress line counts messages, and attempts as attempts', () => {
    expect(progressLine(stats(), NOW)).toBe('[10:30:30] detected 0, sent 0 | processed 258 (sbqnormal 0 applied, 125 failed · sbqhigh 133 applied), 658 attempts');
  });

  it('the --once summary counts each message once and lists the attempts that brought one back apart', () => {
    const summary = formatSummary({ runs: [], stats: stats(), depths: [], queues: DEFAULT_QUEUES, seconds: 1 });
    expect(summary.split('\n').slice(3)).toEqual([
      '',
      'Processed (messages by how they ended, each once; attempts count every try)',
      '  sbqnormal            Success 0  Superseded 0  Ignored 0  Transitive 0  Failed 125  · attempts 500',
      '  sbqhigh              Success 133  Superseded 0  Ignored 0  Transitive 0  Failed 0  · attempts 158',
      '',
      'Where messages ended',
      '  applied to the target           133',
      '  superseded (newer in batch)       0',
      '  ignored (outdated)                0  → sbqignored',
      '  parked (dependency missing)       0  → sbqtransitivehigh / sbqtransitivenormal / sbqtransitivelow',
      '  dead-lettered                   125  → <queue>/$deadletterqueue',
      '',
      'Attempts that brought a message back for another',
      '  retried later                   400  → a scheduled copy in its queue',
      '  waiting for their target          0  → a scheduled copy (target in outage)',
      '  released for redelivery           0  → redelivered',
      '',
      'Queues now (active / scheduled / dead-letter)',
    ]);
  });

  it('the status page shows messages per outcome, attempts beside them, and failed messages beside failed attempts', async () => {
    const f = statusFixture();
    const model = await buildStatus(f.sources, stats());
    expect([model.processedTotals.Success, model.processedTotals.Failed, model.attemptTotal]).toEqual([133, 125, 658]);
    expect(model.queues.filter((q) => q.attempts > 0).map((q) => [q.queue, q.processed.Success, q.processed.Failed, q.attempts])).toEqual([
      ['sbqhigh', 133, 0, 158],
      ['sbqnormal', 0, 125, 500],
    ]);
    const [failure] = model.failures;
    expect([failure.error, failure.messages, failure.count]).toEqual(['customer 7: 400 invalid vat', 150, 525]);
    const html = renderStatusPage(model);
    expect(html).toContain('<th colspan="5">Messages processed since start (each once, by how it ended)</th>');
    expect(html).toContain('<td class="num Failed" data-total-outcome="Failed">125</td><td class="num" data-total-attempts="658">658</td>');
    expect(html).toContain('<tr data-failure-count="525" data-failure-messages="150" data-dead-lettered="1"><td class="num">150</td><td class="num">525</td>');
  });
});
