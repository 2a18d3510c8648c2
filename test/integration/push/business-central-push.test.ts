import { Command } from 'commander';
import { registerPushCommands } from '../../../src/cli/commands/push';
import { LocalHttpServer } from '../../../src/host/http-server';
import { HostStats } from '../../../src/host/host-stats';
import { buildStatus } from '../../../src/host/status/build-status';
import type { Runtime } from '../../../src/runtime/runtime';
import { PUSH_ROUTE, pushContractHandler, pushHandler } from '../../../src/http/push-handler';
import { silentLogger } from '../../../src/telemetry/logger';
import { BusinessCentralStandIn, COMPANY_ID } from '../../support/business-central-stand-in';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/**
 * Business Central webhooks end to end against a stand-in that speaks its documented
 * subscription and notification protocol (handshake included): the subscription is created,
 * renewed before expiry and re-created when gone; a customer created, changed and deleted in
 * Business Central reaches the SQLite target through notifications alone (no poll).
 */
const SECRET = 'bc-hook-secret';
const STATE = 'bc-client-state';
const DAY = 24 * 3600_000;

let fx: SyncFixture;
let bc: BusinessCentralStandIn;
let hooks: LocalHttpServer;
const env: NodeJS.ProcessEnv = { BC_HOOK_SECRET: SECRET, BC_STATE: STATE };

beforeEach(async () => {
  bc = new BusinessCentralStandIn();
  const serviceUrl = await bc.start();
  fx = await createSyncFixture({ env }, (config) => {
    (config.connections as unknown[]).push({ name: 'bc', type: 'businesscentral', settings: { company: COMPANY_ID, serviceUrl } });
    (config.mappings as unknown[]).push({
      name: 'bc-customer-to-customer',
      source: { entity: 'customers', key: ['id'] },
      target: { entity: 'customers', key: ['crm_id'] },
      fields: [
        { target: 'crm_id', source: 'id' },
        { target: 'name', source: 'displayName', operations: [{ op: 'upper' }] },
        { target: 'city', source: 'city' },
        { target: 'modified_at', source: 'lastModifiedDateTime' },
      ],
    });
    (config.jobs as unknown[]).push({
      name: 'bc-customers',
      schedule: '0 0 * * * *',
      source: 'bc',
      target: 'erp',
      mapping: 'bc-customer-to-customer',
      watermark: { type: 'datetime', field: 'lastModifiedDateTime' },
      skipOutdatedMessages: true,
      push: { format: 'businesscentral', secret: 'BC_HOOK_SECRET', clientState: 'BC_STATE', notificationUrl: 'BC_NOTIFY_URL' },
    });
  });
  // The notification URL Business Central calls: the local host's route, the secret as `code`.
  hooks = new LocalHttpServer(
    [
      { method: 'POST', route: PUSH_ROUTE, handler: (input) => pushHandler(fx.runtime, input, { hostAuthenticated: false }) },
      { method: 'GET', route: PUSH_ROUTE, handler: (input) => pushContractHandler(fx.runtime, input, { hostAuthenticated: false }) },
    ],
    silentLogger,
  );
  env.BC_NOTIFY_URL = `${await hooks.listen(0)}/api/hooks/bc-customers?code=${SECRET}`;
});

afterEach(async () => {
  await hooks.close();
  await fx.close();
  await bc.close();
});

const customers = () => fx.erp.prepare('SELECT crm_id, name, city FROM customers').all();
const C1 = { id: '130bbd17-dbb9-4790-9b12-2b0e9c9d22c3', number: '10000', displayName: 'Adatum Corporation', city: 'Atlanta' };

describe('Business Central webhooks', () => {
  it('subscribes with the handshake; a customer created, changed and deleted reaches the target through notifications', async () => {
    expect(await fx.runtime.subscriptions.keepAll()).toEqual([expect.objectContaining({ job: 'bc-customers', action: 'created' })]);
    expect(bc.handshakes).toEqual([{ url: env.BC_NOTIFY_URL, status: 200, ok: true }]);
    const [sub] = bc.subscriptions.values();
    expect(sub).toMatchObject({ resource: `/api/v2.0/companies(${COMPANY_ID})/customers`, clientState: STATE });

    expect(await bc.change('created', C1)).toEqual([202]);
    await fx.drain();
    expect(customers()).toEqual([{ crm_id: C1.id, name: 'ADATUM CORPORATION', city: 'Atlanta' }]);

    expect(await bc.change('updated', { ...C1, displayName: 'Adatum Corp.', city: 'Boston' })).toEqual([202]);
    await fx.drain();
    expect(customers()).toEqual([{ crm_id: C1.id, name: 'ADATUM CORP.', city: 'Boston' }]);

    expect(await bc.change('deleted', C1)).toEqual([202]);
    await fx.drain();
    expect(customers()).toEqual([]);
    // Nothing was polled: the watermark never moved.
    expect((await fx.runtime.watermarks.getWatermarkByJobName('bc-customers')).watermark).toBeNull();
  });

  it('renews within a day of expiry (handshake again), keeps it otherwise, and notifications go on across the old expiry', async () => {
    await fx.runtime.subscriptions.keepAll();
    const [first] = bc.subscriptions.values();
    expect(await fx.runtime.subscriptions.keepAll()).toEqual([expect.objectContaining({ action: 'kept', subscriptionId: first.subscriptionId })]);
    // Two and a half days later: half a day left.
    const oldExpiry = Date.now() + 12 * 3600_000;
    first.expires = oldExpiry;
    expect(await fx.runtime.subscriptions.keepAll()).toEqual([expect.objectContaining({ action: 'renewed', subscriptionId: first.subscriptionId })]);
    expect(bc.handshakes.map((h) => h.ok)).toEqual([true, true]);
    expect(first.expires).toBeGreaterThan(oldExpiry + 2 * DAY);
    // The status page shows the renewed subscription with its new expiry.
    const [status] = (await buildStatus(fx.runtime, new HostStats(new Date()))).push.filter((p) => p.job === 'bc-customers');
    expect(status).toEqual({
      job: 'bc-customers',
      format: 'businesscentral',
      route: '/api/hooks/bc-customers',
      subscription: expect.objectContaining({ resource: `/api/v2.0/companies(${COMPANY_ID})/customers`, subscriptionId: first.subscriptionId, lastAction: 'renewed', lastError: null }),
    });
    expect(Date.parse(status.subscription!.expiresAt!)).toBe(first.expires);
    expect(status.subscription!.lastRenewedAt).toBe(status.subscription!.lastCheckedAt);
    expect(status.subscription!.problem).toBeUndefined();
    bc.advance(1 * DAY);
    expect(await bc.change('created', C1)).toEqual([202]);
    await fx.drain();
    expect(customers()).toHaveLength(1);
  });

  it('creates it again when the renewal finds it gone (404), and when it lapsed', async () => {
    await fx.runtime.subscriptions.keepAll();
    const [first] = bc.subscriptions.values();
    first.expires = Date.now() + 3600_000;
    first.vanishOnPatch = true;
    const again = await fx.runtime.subscriptions.keepAll();
    expect(again).toEqual([expect.objectContaining({ action: 'created' })]);
    expect(again[0].subscriptionId).not.toBe(first.subscriptionId);
    bc.advance(4 * DAY);
    expect(bc.subscriptions.size).toBe(1);
    expect(await fx.runtime.subscriptions.keepAll()).toEqual([expect.objectContaining({ action: 'created' })]);
    expect([...bc.subscriptions.values()].filter((s) => s.expires > bc.now())).toHaveLength(1);
  });

  it('a notification URL that fails the handshake creates nothing and is reported, not thrown', async () => {
    env.BC_NOTIFY_URL = `${env.BC_NOTIFY_URL!.split('?')[0]}?code=wrong`;
    const kept = await fx.runtime.subscriptions.keepAll();
    expect(kept).toEqual([{ job: 'bc-customers', action: 'failed', error: expect.stringContaining('handshake') }]);
    // The answer quotes the URL, whose query holds a function key in Azure: redacted.
    expect(kept[0].error).toContain('the notification URL *** did not answer');
    expect(kept[0].error).not.toContain('code=wrong');
    expect(bc.handshakes).toEqual([expect.objectContaining({ status: 401, ok: false })]);
    expect(bc.subscriptions.size).toBe(0);
    // The status page: no subscription, the (redacted) error and why it needs a look.
    expect(fx.runtime.subscriptions.known()).toEqual([
      expect.objectContaining({ job: 'bc-customers', subscriptionId: null, expirationDateTime: null, lastRenewedAt: null, lastAction: 'failed', lastError: kept[0].error, lastErrorAt: expect.any(String) }),
    ]);
    const [status] = (await buildStatus(fx.runtime, new HostStats(new Date()))).push;
    expect(status.subscription?.problem).toBe(`the last renewal run failed: ${kept[0].error}`);
    expect(JSON.stringify(status)).not.toContain('code=wrong');
  });

  it('a collection notification makes the job due; a wrong clientState is refused (401) and sends nothing', async () => {
    await fx.runtime.subscriptions.keepAll();
    await fx.runtime.watermarks.updateWatermarkByJobName('bc-customers', null, new Date());
    expect((await fx.runtime.jobs.getJobsToRun(new Date())).map((j) => j.name)).not.toContain('bc-customers');
    expect(await bc.notifyCollection()).toEqual([202]);
    expect((await fx.runtime.jobs.getJobsToRun(new Date())).map((j) => j.name)).toContain('bc-customers');
    bc.customers.set(C1.id, { ...C1, lastModifiedDateTime: new Date().toISOString() });
    expect(await bc.notify('created', `api/v2.0/companies(${COMPANY_ID})/customers(${C1.id})`, new Date().toISOString(), 'forged')).toEqual([401]);
    expect((await fx.runtime.bus.counts('sbqnormal')).active).toBe(0);
  });

  it('highwater push subscriptions create, list and delete, never printing the URL\'s query', async () => {
    const printed: string[] = [];
    const run = async (...args: string[]) => {
      const program = new Command().exitOverride();
      const runtime: Runtime = { ...fx.runtime, close: async () => {} };
      registerPushCommands(program, { settings: () => fx.settings, openRuntime: async () => runtime, print: (l) => printed.push(l), notice: () => {} });
      await program.parseAsync(['node', 'highwater', 'push', 'subscriptions', ...args]);
    };
    await run('create');
    const [sub] = bc.subscriptions.values();
    expect(printed).toEqual([`job bc-customers: created ${sub.subscriptionId} until ${new Date(sub.expires).toISOString()}`]);
    await run('list');
    expect(printed[1]).toBe(`job bc-customers: ${sub.subscriptionId} expires ${new Date(sub.expires).toISOString()} → ${env.BC_NOTIFY_URL!.split('?')[0]} (${bc.customersResource})`);
    expect(printed.join('\n')).not.toContain(SECRET);
    await run('delete', 'bc-customers');
    expect(printed[2]).toBe('job bc-customers: 1 subscription(s) deleted');
    expect(bc.subscriptions.size).toBe(0);
    await expect(run('delete', 'crm-accounts')).rejects.toThrow('job "crm-accounts" does not take Business Central notifications');
  });

  it('answers the handshake by POST or GET with the token as text/plain, and only to a caller with the secret', async () => {
    const url = (token: string, code = SECRET) => `${env.BC_NOTIFY_URL!.split('?')[0]}?code=${code}&validationToken=${encodeURIComponent(token)}`;
    for (const method of ['POST', 'GET']) {
      const response = await fetch(url('tok+en/1'), { method });
      expect([response.status, response.headers.get('content-type'), await response.text()]).toEqual([200, 'text/plain; charset=utf-8', 'tok+en/1']);
    }
    const wrong = await fetch(url('t', 'guess'), { method: 'POST' });
    expect([wrong.status, await wrong.json()]).toEqual([401, { error: { code: 'Unauthorized', message: "code: does not match the job's push.secret" } }]);
    const long = await fetch(url('x'.repeat(2049)), { method: 'POST' });
    expect([long.status, ((await long.json()) as { error: { message: string } }).error.message]).toEqual([400, 'validationToken: expected 1 to 2048 characters']);
    const other = await fetch(`${env.BC_NOTIFY_URL!.split('/api/')[0]}/api/hooks/crm-accounts?validationToken=t`, { method: 'POST' });
    expect(other.status).toBe(404);
  });
});
