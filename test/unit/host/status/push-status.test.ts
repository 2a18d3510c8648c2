import type { HttpInput } from '../../../../src/http/http-types';
import { buildStatus } from '../../../../src/host/status/build-status';
import { statusRoutes } from '../../../../src/host/status/status-routes';
import type { KnownSubscription } from '../../../../src/push/subscription-keeper';
import { job, NOW, statusFixture } from './status-fixture';

const input: HttpInput = { method: 'GET', params: {}, query: new URLSearchParams(), body: '', headers: {} };
const HOUR = 3600_000;
const at = (ms: number) => new Date(NOW.getTime() + ms).toISOString();

function known(overrides: Partial<KnownSubscription> = {}): KnownSubscription {
  return {
    job: 'bc-customers',
    resource: '/api/v2.0/companies(c0ffee)/customers',
    subscriptionId: 'sub-1',
    expirationDateTime: at(72 * HOUR),
    lastRenewedAt: at(-HOUR),
    lastCheckedAt: at(-HOUR),
    lastAction: 'created',
    lastError: null,
    lastErrorAt: null,
    ...overrides,
  };
}

/** The fixture's jobs plus one push job per format. */
function withPushJobs(subscriptions: KnownSubscription[]) {
  const f = statusFixture();
  f.jobs.push(
    job('crm-pushed', { order: 50, push: { format: 'generic', secret: 'CRM_HOOK_SECRET', imageMissingIsNull: false } }),
    job('dv-accounts', { order: 60, source: 'dataverse', push: { format: 'dataverse', table: 'account', imageMissingIsNull: false } }),
    job('bc-customers', { order: 70, source: 'bc', push: { format: 'businesscentral', notificationUrl: 'BC_URL', imageMissingIsNull: false } }),
  );
  return { f, sources: { ...f.sources, subscriptions: { known: () => subscriptions } } };
}

describe('status: push', () => {
  it('lists the push jobs with route and format; Business Central with the subscription the keeper knows', async () => {
    const { f, sources } = withPushJobs([known()]);
    const model = await buildStatus(sources, f.stats);
    expect(model.push).toEqual([
      { job: 'crm-pushed', format: 'generic', route: '/api/hooks/crm-pushed' },
      { job: 'dv-accounts', format: 'dataverse', route: '/api/hooks/dv-accounts' },
      {
        job: 'bc-customers',
        format: 'businesscentral',
        route: '/api/hooks/bc-customers',
        subscription: {
          resource: '/api/v2.0/companies(c0ffee)/customers',
          subscriptionId: 'sub-1',
          expiresAt: '2026-06-04T10:30:30.000Z',
          lastRenewedAt: '2026-06-01T09:30:30.000Z',
          lastCheckedAt: '2026-06-01T09:30:30.000Z',
          lastAction: 'created',
          lastError: null,
          lastErrorAt: null,
        },
      },
    ]);
  });

  it('a Business Central job the keeper has not run for yet shows null; jobs without push are not listed', async () => {
    const { f, sources } = withPushJobs([]);
    const model = await buildStatus(sources, f.stats);
    expect(model.push.map((p) => [p.job, p.subscription])).toEqual([
      ['crm-pushed', undefined],
      ['dv-accounts', undefined],
      ['bc-customers', null],
    ]);
    const plain = statusFixture();
    expect((await buildStatus(plain.sources, plain.stats)).push).toEqual([]);
  });

  it.each([
    ['expired', known({ expirationDateTime: at(-1000), lastAction: 'kept' }), `expired at ${at(-1000)}: Business Central sends no notifications`],
    ['failed renewal', known({ lastAction: 'failed', lastError: 'the notification URL *** did not answer the handshake', lastErrorAt: at(-HOUR) }), 'the last renewal run failed: the notification URL *** did not answer the handshake'],
    ['never created', known({ subscriptionId: null, expirationDateTime: null, lastRenewedAt: null, lastAction: 'failed', lastError: 'BC down' }), 'the last renewal run failed: BC down'],
    ['due and only kept', known({ expirationDateTime: at(2 * HOUR), lastAction: 'kept' }), `expires at ${at(2 * HOUR)} and was not renewed`],
  ])('flags a subscription that needs a look: %s', async (_case, k, problem) => {
    const { f, sources } = withPushJobs([k]);
    const [, , bc] = (await buildStatus(sources, f.stats)).push;
    expect(bc.subscription?.problem).toBe(problem);
  });

  it('an error from an earlier run stays visible after a later success, without a problem', async () => {
    const { f, sources } = withPushJobs([known({ lastAction: 'renewed', lastError: 'BC down', lastErrorAt: at(-2 * HOUR) })]);
    const [, , bc] = (await buildStatus(sources, f.stats)).push;
    expect([bc.subscription?.lastError, bc.subscription?.problem]).toEqual(['BC down', undefined]);
  });

  it('the page shows a Push section with route, format, resource, expiry, last renewal and last error, escaped', async () => {
    const { f, sources } = withPushJobs([known({ lastAction: 'failed', lastError: 'answer <500> "x"', lastErrorAt: at(-HOUR) })]);
    const html = String((await statusRoutes({ runtime: sources, stats: f.stats }).find((r) => r.route === '/')!.handler(input)).body);
    expect(html).toContain('<section id="push"><h2>Push (3)</h2>');
    expect(html).toContain('<code>POST /api/hooks/crm-pushed</code>');
    expect(html).toContain('<tr data-push-job="bc-customers" class="problem">');
    expect(html).toContain('/api/v2.0/companies(c0ffee)/customers');
    expect(html).toContain(`data-expires="${at(72 * HOUR)}"`);
    expect(html).toContain('answer &lt;500&gt; &quot;x&quot;');
    expect(html).not.toContain('<500>');
    const plain = statusFixture();
    expect(String((await statusRoutes({ runtime: plain.sources, stats: plain.stats }).find((r) => r.route === '/')!.handler(input)).body)).not.toContain('id="push"');
  });
});
