import type { HttpInput, HttpRoute } from '../../../../src/http/http-types';
import { groupByReason } from '../../../../src/host/status/dead-letter-report';
import { normalizeErrorMessage } from '../../../../src/mover/normalize-error';
import { formatSeconds } from '../../../../src/host/status/html';
import type { StatusModel } from '../../../../src/host/status/status-model';
import { moverCommandLine } from '../../../../src/host/status/mover-report';
import { statusRoutes } from '../../../../src/host/status/status-routes';
import { statusScript } from '../../../../src/host/status/status-script';
import { TargetHealth } from '../../../../src/process/target-health';
import { advanceIncidents } from '../../../../src/host/incidents/incident-lifecycle';
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
    expect(routes.map((r) => `${r.method} ${r.route}`)).toEqual(['GET /', 'GET status', 'GET /dead-letters', 'GET status/dead-letters', 'GET /dead-letters/report']);
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
    expect(html).toContain('<td class="num" data-lag="10" title="newest change read 5m 0s ago">10s</td>');
    expect(html).toContain('id="throughput-chart"');
    expect(html).toContain('<g class="outcome" data-outcome="Failed" data-count="0">');
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(html).toContain("fetch('/api/jobs/' + encodeURIComponent(job) + '/execute'");
  });

  it('shows a target in outage, then back from it while its deferred messages are still to come', async () => {
    const f = statusFixture();
    const health = new TargetHealth({ threshold: 1, minMessages: 1 });
    health.failed('erp', new Date(NOW.getTime() - 600_000), 'connect <ECONNREFUSED>', ['m']);
    health.deferUntil('erp', NOW);
    const routes = statusRoutes({ runtime: { ...f.sources, targetHealth: health }, stats: f.stats });
    const page = async () => String((await route(routes, 'GET', '/').handler(input)).body);
    const model = async () => (await route(routes, 'GET', 'status').handler(input)).body as StatusModel;
    expect((await model()).targetOutages).toMatchObject([{ connection: 'erp', error: 'connect <ECONNREFUSED>' }]);
    expect((await model()).targetRecoveries).toEqual([]);
    expect(await page()).toContain('<h2>Target erp is in outage</h2>');
    expect(await page()).toContain('connect &lt;ECONNREFUSED&gt;');
    health.succeeded('erp');
    // Deferred at NOW in an outage 10 min old: due 5 min later.
    expect((await model()).targetRecoveries).toEqual([{ connection: 'erp', until: '2026-06-01T10:35:30.000Z' }]);
    expect((await model()).targetOutages).toEqual([]);
    expect(await page()).toContain('<h2>Target erp is back from an outage</h2>');
  });

  it('shows the incidents, open ones first, in the page and in /api/status', async () => {
    const f = statusFixture();
    const opened = new Date(NOW.getTime() - 600_000);
    const incidents = advanceIncidents(
      advanceIncidents([], { holding: [{ condition: 'targetOutage', causeKind: 'connection', cause: 'erp', detail: 'no such table: <customers>' }, { condition: 'lagBeyond', causeKind: 'job', cause: 'crm-accounts-to-erp', detail: 'old' }], undetermined: [] }, opened).incidents,
      { holding: [{ condition: 'targetOutage', causeKind: 'connection', cause: 'erp', detail: 'no such table: <customers>' }], undetermined: [] },
      NOW,
    ).incidents;
    const routes = statusRoutes({ runtime: { ...f.sources, incidents: { list: () => incidents } }, stats: f.stats });
    const model = (await route(routes, 'GET', 'status').handler(input)).body as StatusModel;
    expect(model.incidents).toEqual([
      { id: `targetOutage:connection:erp:${opened.toISOString()}`, condition: 'targetOutage', title: 'Target in outage', causeKind: 'connection', cause: 'erp', detail: 'no such table: <customers>', state: 'open', openedAt: opened.toISOString(), closedAt: null },
      expect.objectContaining({ condition: 'lagBeyond', cause: 'crm-accounts-to-erp', state: 'closed', closedAt: NOW.toISOString() }),
    ]);
    const html = String((await route(routes, 'GET', '/').handler(input)).body);
    expect(html).toContain('<h2>Incidents (1 open)</h2>');
    expect(html).toContain('<tr data-incident="targetOutage" data-cause="erp" data-state="open" class="problem">');
    expect(html).toContain('no such table: &lt;customers&gt;');
    expect(html).toContain('<tr data-incident="lagBeyond" data-cause="crm-accounts-to-erp" data-state="closed">');
    // Without a monitor (none known): an empty list, and the page says so.
    const none = statusRoutes({ runtime: f.sources, stats: f.stats });
    expect(((await route(none, 'GET', 'status').handler(input)).body as StatusModel).incidents).toEqual([]);
    expect(String((await route(none, 'GET', '/').handler(input)).body)).toContain('No incident in the last 24 hours.');
  });

  it('a disabled response job says what feeds it and offers no Run now', async () => {
    const f = statusFixture();
    f.jobs[0].responseJob = 'erp-numbers-to-crm';
    const html = String((await route(statusRoutes({ runtime: f.sources, stats: f.stats }), 'GET', '/').handler(input)).body);
    expect(html).toContain('<td class="muted">fed by responses of crm-accounts-to-erp</td>');
    expect(html).toContain('<strong>erp-numbers-to-crm</strong> <span class="muted">(response job)</span>');
    expect(html).not.toContain('data-run-job="erp-numbers-to-crm">Run now');
    expect(html).not.toContain('never run');
  });

  it('the dead-letter page shows source keys, the message id on hover', async () => {
    const f = statusFixture();
    f.peeked['sbqhigh/deadLetter'][0].applicationProperties.SourceKey = 'A-0007';
    const html = String((await route(statusRoutes({ runtime: f.sources, stats: f.stats }), 'GET', '/dead-letters').handler(input)).body);
    expect(html).toContain('<code title="message id m1">A-0007</code>');
    expect(html).toContain('<code title="message id m2">(no source key)</code>');
  });

  it('the dead-letter page groups parked messages by error, links to the mover’s dry run and shows its command', async () => {
    const f = statusFixture();
    const routes = statusRoutes({ runtime: f.sources, stats: f.stats }, { configDir: '/srv/highwater config' });
    const html = String((await route(routes, 'GET', '/dead-letters').handler(input)).body);
    expect(html).toContain('<section id="dl-sbqhigh" data-source="sbqhigh / dead-letter" data-count="2">');
    expect(html).toContain('customer 7: 400 invalid vat');
    expect(html).toContain('MaxDeliveryCountExceeded');
    expect(html).toContain('<section id="q-sbqtransitivenormal" data-source="sbqtransitivenormal" data-count="1">');
    expect(html).toContain('<a class="report" href="/dead-letters/report?queue=sbqhigh&amp;deadLetter=true">');
    expect(html).toContain('<a class="report" href="/dead-letters/report?queue=sbqtransitivenormal&amp;deadLetter=false">');
    const dataDir = f.sources.settings.dataDir;
    expect(html).toContain(`<code>npx dead-letter-mover --queue sbqhigh --dead-letter --data-dir ${dataDir} --config &#39;/srv/highwater config&#39;</code>`);
    expect(html).not.toContain('sbqnormal /');
    const json = (await route(routes, 'GET', 'status/dead-letters').handler(input)).body as { sources: Array<{ queue: string; subQueue?: string; groups: unknown[] }> };
    expect(json.sources.map((s) => [s.queue, s.subQueue, s.groups.length])).toEqual([
      ['sbqhigh', 'deadLetter', 2],
      ['sbqtransitivenormal', undefined, 1],
    ]);
  });

  it('the report route shows the mover’s dry-run output for a known queue only', async () => {
    const f = statusFixture();
    const asked: unknown[] = [];
    const routes = statusRoutes(
      { runtime: f.sources, stats: f.stats },
      {
        moverReport: async (source) => {
          asked.push(source);
          return { exitCode: 0, lines: ['Dry run: nothing is changed (add --apply to act).', '  2  <b>x</b>'] };
        },
      },
    );
    const report = route(routes, 'GET', '/dead-letters/report');
    const ok = await report.handler({ ...input, query: new URLSearchParams('queue=sbqhigh&deadLetter=true') });
    expect(asked).toEqual([{ queue: 'sbqhigh', deadLetter: true }]);
    expect(String(ok.body)).toContain('<pre>Dry run: nothing is changed (add --apply to act).\n  2  &lt;b&gt;x&lt;/b&gt;</pre>');
    expect(await report.handler({ ...input, query: new URLSearchParams('queue=--apply') })).toEqual({
      status: 400,
      body: { error: { code: 'BadRequest', message: 'query.queue: expected one of sbqhigh, sbqnormal, sbqlow, sbqtransitivehigh, sbqtransitivenormal, sbqtransitivelow, sbqignored' } },
    });
    expect(await report.handler({ ...input, query: new URLSearchParams('queue=sbqhigh&deadLetter=yes') })).toEqual({
      status: 400,
      body: { error: { code: 'BadRequest', message: 'query.deadLetter: expected true or false' } },
    });
    expect(asked).toHaveLength(1);
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
      { reason: 'x', count: 2, jobs: ['j1', 'j2'], sampleMessageIds: ['a', 'b'], sampleSourceKeys: ['(no source key)', '(no source key)'] },
      { reason: '(no error recorded)', count: 1, jobs: [], sampleMessageIds: ['d'], sampleSourceKeys: ['(no source key)'] },
      { reason: 'described', count: 1, jobs: ['j3'], sampleMessageIds: ['c'], sampleSourceKeys: ['(no source key)'] },
    ]);
  });

  it('groups ignored messages by why they were ignored (IgnoredReason), older ones without it by the fallback', () => {
    const superseded = 'superseded: a newer change of the record (2026-01-02T00:00:00.0000000Z) was applied since';
    const groups = groupByReason([
      busMessage('a', { JobName: 'j', IgnoredReason: superseded }),
      busMessage('b', { JobName: 'j', IgnoredReason: superseded }),
      busMessage('c', { JobName: 'j' }),
    ], 'outdated');
    expect(groups.map((g) => [g.reason, g.count])).toEqual([[normalizeErrorMessage(superseded, 'outdated'), 2], ['outdated', 1]]);
  });
});

describe('the page script', () => {
  it('is valid JavaScript', () => {
    expect(() => new Function(statusScript(5_000))).not.toThrow();
  });
});

describe('moverCommandLine', () => {
  it('quotes arguments a shell would split', () => {
    expect(moverCommandLine(['--queue', 'sbqhigh', '--config', "/a b/it's"])).toBe(`npx dead-letter-mover --queue sbqhigh --config '/a b/it'\\''s'`);
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
