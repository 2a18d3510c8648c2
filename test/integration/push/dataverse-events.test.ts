import { Command } from 'commander';
import { asContext } from '../../../functions/ReceiveDataverseEvents';
import { registerPushCommands } from '../../../src/cli/commands/push';
import { pushHandler } from '../../../src/http/push-handler';
import type { HttpOutput } from '../../../src/http/http-types';
import type { Runtime } from '../../../src/runtime/runtime';
import { dataverseEvent } from '../../unit/connectors/dataverse/dataverse-events';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/**
 * Dataverse events in, by both routes, on a real runtime (SQLite target, local bus, Azurite):
 * the webhook (`POST hooks/{job}` with a RemoteExecutionContext body) and the Service Bus queue
 * handler (the Functions trigger's, also behind `highwater push dataverse-file`). The bodies are
 * serialized as Dataverse posts them (test/unit/connectors/dataverse/events).
 */
const SECRET = 'dataverse-hook-secret';
const ORG = '4ef5b371-e89e-e711-8122-000d3aa2331c';
const ACCOUNT = 'a1b2c3d4-0000-4000-8000-000000000001';

let fx: SyncFixture;
let dataverse: Server;
/** Rows the Dataverse stand-in serves at `GET /api/data/v9.2/accounts(<id>)?$select=…`, and the reads it got. */
const rows = new Map<string, Record<string, unknown>>();
const reads: string[] = [];

/** `GET accounts(<id>)?$select=a,b` as the Web API answers it: the selected columns (null when empty), or 404 with its error body. */
function startDataverse(): Promise<string> {
  dataverse = createServer((req, res) => {
    reads.push(decodeURIComponent(req.url ?? ''));
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const m = /^\/api\/data\/v9\.2\/accounts\(([0-9a-f-]+)\)$/.exec(url.pathname);
    const row = m ? rows.get(m[1]) : undefined;
    if (!row) {
      res.writeHead(404, { 'content-type': 'application/json; odata.metadata=minimal' });
      return res.end(JSON.stringify({ error: { code: '0x80040217', message: `account With Id = ${m?.[1]} Does Not Exist` } }));
    }
    const selected = (url.searchParams.get('$select') ?? '').split(',');
    res.writeHead(200, { 'content-type': 'application/json; odata.metadata=minimal', 'odata-version': '4.0' });
    res.end(JSON.stringify({ '@odata.context': 'http://127.0.0.1/api/data/v9.2/$metadata#accounts/$entity', '@odata.etag': 'W/"1"', ...Object.fromEntries(selected.map((c) => [c, row[c] ?? null])) }));
  });
  return new Promise((resolve) => dataverse.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(dataverse.address() as AddressInfo).port}`)));
}

beforeEach(async () => {
  rows.clear();
  reads.length = 0;
  const dataverseUrl = await startDataverse();
  fx = await createSyncFixture({ env: { DV_HOOK_SECRET: SECRET } }, (config) => {
    // Read only for an event without a usable post-image.
    (config.connections as unknown[]).push({ name: 'dv', type: 'dataverse', settings: { url: dataverseUrl } });
    (config.mappings as unknown[]).push({
      name: 'dv-account-to-customer',
      // The entity set, as a job that also polls Dataverse names it; push.table gives the logical name.
      source: { entity: 'accounts', key: ['accountid'] },
      target: { entity: 'customers', key: ['crm_id'] },
      fields: [
        { target: 'crm_id', source: 'accountid' },
        { target: 'name', source: 'name', operations: [{ op: 'upper' }] },
        { target: 'city', source: 'address1_city', operations: [{ op: 'trim' }] },
        { target: 'modified_at', source: 'modifiedon' },
      ],
    });
    (config.jobs as unknown[]).push({
      name: 'dv-accounts',
      schedule: '0 0 * * * *',
      source: 'dv',
      target: 'erp',
      mapping: 'dv-account-to-customer',
      watermark: { type: 'datetime', field: 'modifiedon' },
      skipOutdatedMessages: true,
      push: { format: 'dataverse', table: 'account', secret: 'DV_HOOK_SECRET', organizationId: ORG },
    });
  });
});

afterEach(async () => {
  await fx.close();
  await new Promise((resolve) => dataverse.close(resolve));
});

/** A context as the webhook posts it now (Dataverse stamps OperationCreatedOn when the operation runs). */
function fresh(name: string, patch: Record<string, unknown> = {}): string {
  return JSON.stringify({ ...dataverseEvent(name), OperationCreatedOn: `/Date(${Date.now()}+0000)/`, ...patch });
}

function webhook(body: string, headers: Record<string, string> = { 'x-highwater-key': SECRET }): Promise<HttpOutput> {
  return pushHandler(fx.runtime, { method: 'POST', params: { job: 'dv-accounts' }, query: new URLSearchParams(), body, headers }, { hostAuthenticated: false });
}

const customers = () => fx.erp.prepare('SELECT crm_id, name, city, modified_at FROM customers').all();
const errorOf = (out: HttpOutput) => (out.body as { error: { code: string; message: string } }).error;
const queued = async () => (await fx.runtime.bus.counts(fx.settings.queues.work.normal)).active;

describe('Dataverse webhook (POST hooks/{job})', () => {
  it('Create with a post-image upserts the row; Delete deletes it by id', async () => {
    const created = await webhook(fresh('create-account-post-image'));
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ sent: 1, queue: 'sbqnormal' });
    await fx.drain();
    expect(customers()).toEqual([{ crm_id: ACCOUNT, name: 'CONTOSO LTD', city: 'Redmond', modified_at: '2025-12-06T00:00:00.000Z' }]);
    expect((await webhook(fresh('delete-account'))).status).toBe(202);
    await fx.drain();
    expect(customers()).toEqual([]);
  });

  it('an Update whose image Dataverse removed for size is completed by reading the row by id', async () => {
    rows.set(ACCOUNT, { accountid: ACCOUNT, name: 'Fabrikam', address1_city: ' Paris ', modifiedon: '2025-12-06T00:02:00Z' });
    const out = await webhook(fresh('update-account-size-exceeded'));
    expect(out.status).toBe(202);
    expect(out.body).toMatchObject({ sent: 1 });
    expect(reads).toEqual([`/api/data/v9.2/accounts(${ACCOUNT})?$select=accountid,modifiedon,name,address1_city`]);
    await fx.drain();
    expect(customers()).toEqual([{ crm_id: ACCOUNT, name: 'FABRIKAM', city: 'Paris', modified_at: '2025-12-06T00:02:00Z' }]);
  });

  it('an image that lacks a mapped column (Dataverse leaves null columns out) is read by id too: the column is null, not missing', async () => {
    rows.set(ACCOUNT, { accountid: ACCOUNT, name: 'Contoso Ltd', modifiedon: '2025-12-06T00:00:00Z' });
    const context = JSON.parse(fresh('create-account-post-image')) as { PostEntityImages: Array<{ value: { Attributes: Array<{ key: string }> } }> };
    const image = context.PostEntityImages[0].value;
    image.Attributes = image.Attributes.filter((a) => a.key !== 'address1_city');
    expect((await webhook(JSON.stringify(context))).body).toMatchObject({ sent: 1 });
    await fx.drain();
    expect(customers()).toEqual([{ crm_id: ACCOUNT, name: 'CONTOSO LTD', city: null, modified_at: '2025-12-06T00:00:00Z' }]);
  });

  it('a row deleted before it could be read sends nothing (its Delete event follows)', async () => {
    const out = await webhook(fresh('update-account-size-exceeded'));
    expect(out.status).toBe(202);
    expect(out.body).toMatchObject({ sent: 0 });
    expect(await queued()).toBe(0);
  });

  it.each([
    ['another organization', () => fresh('create-account-post-image', { OrganizationId: '00000000-0000-0000-0000-000000000001' }), 401, 'Unauthorized', '$.OrganizationId: 00000000-0000-0000-0000-000000000001 is not the job\'s push.organizationId'],
    ['another table', () => fresh('update-contact-webhook'), 400, 'BadNotification', '$.PrimaryEntityName: "contact" is not the table of job "dv-accounts" ("account")'],
    ['another message', () => fresh('delete-account', { MessageName: 'Assign' }), 400, 'BadNotification', '$.MessageName: "Assign" is not Create, Update or Delete'],
    ['no id', () => fresh('delete-account', { PrimaryEntityId: undefined }), 400, 'BadNotification', '$.PrimaryEntityId: missing'],
    ['a replayed context', () => JSON.stringify(dataverseEvent('create-account-post-image')), 400, 'NotificationExpired', '$.OperationCreatedOn: sent at 2025-12-06T00:00:00.000Z, over 600 s ago (push.maxAgeSeconds): refused as a replay'],
  ])('refuses %s and changes nothing', async (_what, body, status, code, message) => {
    const out = await webhook(body());
    expect(out.status).toBe(status);
    expect(errorOf(out)).toEqual({ code, message });
    expect(await queued()).toBe(0);
    expect((await fx.runtime.watermarks.getAllWatermarks()).size).toBe(0);
  });
});

describe('Dataverse Service Bus queue (the Functions trigger and highwater push dataverse-file)', () => {
  it('takes the context as the trigger hands it over (parsed, text with a byte order mark, bytes), without a replay check', async () => {
    const context = dataverseEvent('create-account-post-image');
    const text = `\ufeff${JSON.stringify(context)}`;
    for (const body of [context, text, Buffer.from(text, 'utf8')]) {
      const outcomes = await fx.runtime.push.receiveDataverseEvent(asContext(body));
      expect(outcomes).toEqual([expect.objectContaining({ job: 'dv-accounts', sent: 1 })]);
    }
    // Three copies of one change: one message id, so the bus keeps one.
    expect(await queued()).toBe(1);
    await fx.drain();
    expect(customers()).toEqual([{ crm_id: ACCOUNT, name: 'CONTOSO LTD', city: 'Redmond', modified_at: '2025-12-06T00:00:00.000Z' }]);
  });

  it('refuses a context of a table no job takes (the trigger then leaves it to the queue’s dead-letter)', async () => {
    await expect(fx.runtime.push.receiveDataverseEvent(dataverseEvent('update-contact-webhook'))).rejects.toThrow(
      '$.PrimaryEntityName: no job with push.format dataverse reads table "contact"',
    );
    expect(await queued()).toBe(0);
  });

  it('highwater push dataverse-file sends the file through the same handler', async () => {
    const file = path.join(fx.dir, 'delete.json');
    writeFileSync(file, JSON.stringify(dataverseEvent('delete-account')));
    const printed: string[] = [];
    const program = new Command().exitOverride();
    const runtime: Runtime = { ...fx.runtime, close: async () => {} };
    registerPushCommands(program, { settings: () => fx.settings, openRuntime: async () => runtime, print: (l) => printed.push(l), notice: () => {} });
    await program.parseAsync(['node', 'highwater', 'push', 'dataverse-file', file]);
    expect(printed).toEqual(['job dv-accounts: sent 1 to sbqnormal']);
    expect(await queued()).toBe(1);
    // A file that is not there, or not JSON: a usage error naming it (exit 2), nothing opened or sent.
    writeFileSync(path.join(fx.dir, 'bad.json'), '{"MessageName":');
    for (const bad of [path.join(fx.dir, 'missing.json'), path.join(fx.dir, 'bad.json')]) {
      await expect(program.parseAsync(['node', 'highwater', 'push', 'dataverse-file', bad])).rejects.toMatchObject({ name: 'UsageError', message: expect.stringContaining(bad) });
    }
    expect(await queued()).toBe(1);
  });
});
