import type { HttpInput, HttpRoute } from '../../../../src/http/http-types';
import { groupByReason } from '../../../../src/host/status/dead-letter-report';
import { formatSeconds } from '../../../../src/host/status/html';
import type { StatusModel } from '../../../../src/host/status/status-model';
import { statusRoutes } from '../../../../src/host/status/status-routes';
import { busMessage, NOW, statusFixture } from './status-fixture';

const input: HttpInput = { method: 'GET', params: {}, query: new URLSearchParams(), body: '', headers: {} };

function route(routes: HttpRoute[], method: string, path: string): HttpRoute {
  const found = routes.find((r) => r.method === method && r.route === path);
  if (!found) throw new Error(`no ${method} ${path}`);
  return found;
}

describe('statusRoutes', () => {
  it('serves the page at / and its JSON at /api/status (route `status`), uncached', async () => {
    const f = statusFixture();
    const routes = statusRoutes({ runtime: f.sources, stats: f.stats });
    expect(routes.map((r) => `${r.method} ${r.route}`)).toEqual(['GET /', 'GET status', 'GET /dead-letters', 'GET status/dead-letters']);
    const page = await route(routes, 'GET', '/').handler(input);
    expect(page.status).toBe(200);
    expect(page.headers).toEqual({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    const json = await route(routes, 'GET', 'status').handler(input);
    const model = json.body as StatusModel;
    expect(model.jobs.map((j) => j.name)).toEqual(['crm-accounts-to-erp', 'crm-contacts-to-erp', 'erp-numbers-to-crm']);
    expect(JSON.parse(JSON.stringify(model))).toEqual(model);
  });

  it('the page shows every job with a run-now button, queues, runs and failures, with text escaped', async () => {
    const f = statusFixture();
    f.stats.recordProcessed({ at: NOW, queue: 'sbqhigh', jobName: 'crm-accounts-to-erp', outcome: 'Failed', disposition: 'deadLettered', messageId: 'x', error: 'field <vat> "bad"' });
    const html = String((await route(statusRoutes({ runtime: f.sources, stats: f.stats }), 'GET', '/').handler(input)).body);
    for (const name of ['crm-accounts-to-erp', 'crm-contacts-to-erp', 'erp-numbers-to-crm']) {
      expect(html).toContain(`<button type="button" data-run-job="${name}">Run now</button>`);
    }
    expect(html).toContain('<tr data-queue="sbqhigh" data-active="4" data-dead-letter="2">');
    expect(html).toContain('<a href="/dead-letters#dl-sbqhigh">2</a>');
    expect(html).toContain('source &lt;crm&gt; unavailable');
    expect(html).toContain('field &lt;vat&gt; &quot;bad&quot;');
    expect(html).not.toContain('<vat>');
    expect(html).toContain('data-trigger="manual"');
    expect(html).toContain('<td class="num" data-lag="300">5m 0s</td>');
    expect(html).toContain('id="throughput-chart"');
    expect(html).toContain('<g class="outcome" data-outcome="Failed" data-count="0">');
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(html).toContain("fetch('/api/jobs/' + encodeURIComponent(job) + '/execute'");
  });

  it('the dead-letter page groups parked messages by error and shows the mover command', async () => {
    const f = statusFixture();
    const html = String((await route(statusRoutes({ runtime: f.sources, stats: f.stats }), 'GET', '/dead-letters').handler(input)).body);
    expect(html).toContain('<section id="dl-sbqhigh" data-source="sbqhigh / dead-letter" data-count="2">');
    expect(html).toContain('customer 7: 400 invalid vat');
    expect(html).toContain('MaxDeliveryCountExceeded');
    expect(html).toContain('<section id="q-sbqtransitivenormal" data-source="sbqtransitivenormal" data-count="1">');
    expect(html).toContain('<code>npx dead-letter-mover --queue sbqhigh --dead-letter</code>');
    expect(html).not.toContain('sbqnormal /');
  });

  it('links to the mover’s dry-run report when the host provides one', async () => {
    const f = statusFixture();
    const routes = statusRoutes(
      { runtime: f.sources, stats: f.stats },
      { deadLetterReportUrl: (queue, sub) => `/api/dead-letters/${queue}/report?subQueue=${sub ?? ''}&dryRun=true` },
    );
    const json = (await route(routes, 'GET', 'status/dead-letters').handler(input)).body as { sources: Array<{ queue: string; reportUrl?: string; groups: unknown[] }> };
    expect(json.sources.map((s) => [s.queue, s.reportUrl, s.groups.length])).toEqual([
      ['sbqhigh', '/api/dead-letters/sbqhigh/report?subQueue=deadLetter&dryRun=true', 2],
      ['sbqtransitivenormal', '/api/dead-letters/sbqtransitivenormal/report?subQueue=&dryRun=true', 1],
    ]);
    const html = String((await route(routes, 'GET', '/dead-letters').handler(input)).body);
    expect(html).toContain('<a class="report" href="/api/dead-letters/sbqhigh/report?subQueue=deadLetter&amp;dryRun=true">');
  });

  it('says when only part of a source was grouped', async () => {
    const f = statusFixture();
    const html = String((await route(statusRoutes({ runtime: f.sources, stats: f.stats }, { peekLimit: 1 }), 'GET', '/dead-letters').handler(input)).body);
    expect(html).toContain('(grouped: the first 1)');
  });
});

describe('groupByReason', () => {
  it('groups by ErrorMessage, else dead-letter description, else reason; most frequent first', () => {
    const groups = groupByReason([
      busMessage('a', { JobName: 'j1', ErrorMessage: 'x' }),
      busMessage('b', { JobName: 'j2', ErrorMessage: 'x' }),
      busMessage('c', {}, { subject: 'j3', deadLetterReason: 'R', deadLetterErrorDescription: 'described' }),
      busMessage('d', {}),
    ]);
    expect(groups).toEqual([
      { reason: 'x', count: 2, jobs: ['j1', 'j2'], sampleMessageIds: ['a', 'b'] },
      { reason: '(no error recorded)', count: 1, jobs: [], sampleMessageIds: ['d'] },
      { reason: 'described', count: 1, jobs: ['j3'], sampleMessageIds: ['c'] },
    ]);
  });
});

describe('formatSeconds', () => {
  it.each([
    [null, '—'],
    [42, '42s'],
    [303, '5m 3s'],
    [7_800, '2h 10m'],
    [273_600, '3d 4h'],
    [-10, '-10s'],
  ])('%p → %s', (seconds, text) => {
    expect(formatSeconds(seconds)).toBe(text);
  });
});
