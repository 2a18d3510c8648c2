import path from 'node:path';
import type { ConnectorContext } from '../../../../connectors/base/connector-context';
import { ConnectorRegistry } from '../../../../connectors/base/registry';
import type { SourcePage } from '../../../../connectors/base/source-connector';
import { createBusinessCentralConnectorFactory } from '../../../../connectors/businesscentral';
import { defaultConnectorRegistry } from '../../../../connectors/default-registry';
import { validateConfig } from '../../../../src/config/validate-config';
import { issueLines } from '../../config/valid-config';
import { singleTarget } from '../../../support/single-target';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage, type JsonValue, type QueueMessage } from '../../../../src/model/queue-message';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import fs from 'node:fs';
import { metadataExchange } from '../odata/check-kit';
import { loadExchanges, type RecordedExchange, replayFetch } from '../odata/replay-fetch';

const TENANT = '11111111-2222-3333-4444-555555555555';
const METADATA = fs.readFileSync(path.join(__dirname, 'recordings', 'metadata.xml'), 'utf8');
const recording = (name: string) => loadExchanges(path.join(__dirname, 'recordings', `${name}.json`));

function openBc(exchanges: RecordedExchange[], company = 'CRONUS USA, Inc.') {
  const replay = replayFetch(exchanges);
  const sleeps: number[] = [];
  const warnings: string[] = [];
  const registry = new ConnectorRegistry([createBusinessCentralConnectorFactory({ fetch: replay.fetch, tokens: () => ({ getToken: async () => 'test-token' }) })]);
  const ctx: ConnectorContext = {
    connection: {
      name: 'erp',
      type: 'businesscentral',
      settings: { tenantId: TENANT, company, auth: { kind: 'managedIdentity' } },
      secrets: {},
      maxConcurrency: 4,
    },
    resolveSecret: () => undefined,
    configDir: __dirname,
    clock: { now: () => new Date('2026-03-01T10:00:00Z'), sleep: async (ms: number) => void sleeps.push(ms) },
    warn: (m) => warnings.push(m),
  };
  return { replay, sleeps, warnings, source: () => registry.createSource(ctx), target: () => singleTarget(registry.createTarget(ctx)) };
}

const customersJob: Job = {
  name: 'bc-customers', order: 1, schedule: '0 * * * * *', enabled: true, source: 'erp', target: 'crm', mapping: 'customers',
  priority: 'normal', watermark: { type: 'datetime', field: 'lastModifiedDateTime' }, filter: [], action: JobActionType.NewUpdate,
  skipOutdatedMessages: false, skipUnchanged: false, pageSize: 2, lookbackSeconds: 0,
};
const fromBc: Mapping = {
  name: 'customers',
  source: { entity: 'customers', key: ['id'] },
  target: { entity: 'accounts', key: ['accountnumber'] },
  fields: [{ target: 'accountnumber', source: 'number' }, { target: 'name', source: 'displayName' }],
};
const toBc: Mapping = {
  name: 'to-customers',
  source: { entity: 'accounts', key: ['accountid'] },
  target: { entity: 'customers', key: ['number'] },
  fields: [{ target: 'number', source: 'accountnumber' }, { target: 'displayName', source: 'name' }, { target: 'email', source: 'emailaddress1' }],
};

function message(targetKey: Record<string, JsonValue>, fields: Record<string, JsonValue>, action: QueueMessage['action'] = JobActionType.NewUpdate): QueueMessage {
  return createQueueMessage({ jobName: 'j', action, sourceKey: 'k', targetKey, changeTracker: '1', fields: { ...targetKey, ...fields } });
}

describe('Business Central connector (recorded API v2.0 exchanges)', () => {
  it('finds the company by name, reads customers by lastModifiedDateTime across pages, waits out a 429', async () => {
    // The company first (the API route's $metadata is read relative to it), then the $metadata, once.
    const exchanges = recording('customers-source');
    exchanges.splice(1, 0, metadataExchange(`https://api.businesscentral.dynamics.com/v2.0/${TENANT}/production/api/v2.0/$metadata`, METADATA));
    const bc = openBc(exchanges);
    const watermark = WatermarkValue.initialize('datetime', '2026-02-01T00:00:00Z');
    const pages: SourcePage[] = [];
    for await (const page of bc.source().retrieveChanges(fromBc, customersJob, watermark)) pages.push(page);
    bc.replay.assertDone();
    expect(bc.sleeps).toEqual([5000]);
    expect(pages.map((p) => [p.messages.map((m) => m.fields.accountnumber), p.hasMore, p.lastChangeTracker])).toEqual([
      [['10000', '20000'], true, '2026-02-05T16:40:00.0000000Z'],
      [['30000'], false, '2026-02-10T09:30:12.4370000Z'],
    ]);
    expect(pages[0].messages[0]).toMatchObject({ sourceKey: '0a1b2c3d-44e3-ea11-bb43-000d3a2feca1', fields: { accountnumber: '10000', name: 'Adatum Corporation' } });
  });

  it('updates at the record id with If-Match, creates what is missing, and classifies 412 and 400', async () => {
    const bc = openBc(recording('customers-target'));
    const target = bc.target();
    const responseMapping = [{ from: 'id', to: 'bcId' }];
    expect(await target.upsert(message({ number: 'C-1001' }, { displayName: 'Trey Research Ltd', email: 'info@treyresearch.example' }), toBc, { responseMapping }))
      .toEqual({ returned: { id: '5d115c9c-44e3-ea11-bb43-000d3a2feca1' } });
    expect(await target.upsert(message({ number: 'C-1002' }, { displayName: 'Alpine Ski House', email: 'hello@alpineskihouse.example' }), toBc, { responseMapping }))
      .toEqual({ returned: { id: '7a3c9e10-11f0-f011-8544-000d3a4a1b2c' } });
    await expect(target.upsert(message({ number: 'C-1003' }, { displayName: 'x', email: null }), toBc)).rejects.toMatchObject({
      name: 'TransientError',
      message: 'businesscentral connection "erp": update customers(0f0f0f0f-44e3-ea11-bb43-000d3a2feca1): the record changed since it was read (ETag) (PATCH 412): Another user has already changed the record.  CorrelationId:  4e0c5f3b-5a3e-4d5c-9e6f-0a1b2c3d4e5f. [Request_EntityChanged]',
    });
    // A property the entity does not have is the mapping's mistake, not the record's: a ConfigError pauses the target.
    await expect(target.upsert(message({ number: 'C-1004' }, { displayName: 'y', email: null, colour: 'red' }), toBc)).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringContaining("create in customers: a property does not exist on the entity (POST 400): Could not find a property named 'colour'"),
    });
    bc.replay.assertDone();
  });

  it('posts an invoice with the bound action Microsoft.NAV.post, deletes, and reads versions (company given by id)', async () => {
    const bc = openBc(recording('actions-delete-version'), 'f03f6225-081c-ec11-86bc-000d3a4a1b2c');
    const target = bc.target();
    const post: Job = { ...customersJob, action: JobActionType.InvokeAction, actionName: 'salesInvoices/Microsoft.NAV.post' };
    const invoice = (no: string) => ({ ...message({ number: no }, {}, JobActionType.InvokeAction), actionParameters: { number: no } });
    await target.invokeAction(invoice('103001'), post);
    await expect(target.invokeAction(invoice('103002'), post)).rejects.toMatchObject({
      name: 'TransitiveError',
      message: 'salesInvoices: no record with {"number":"103002"} (yet) for action Microsoft.NAV.post',
    });
    await target.delete(message({ number: 'C-1001' }, {}, JobActionType.Delete), toBc);
    expect(await target.getTargetVersion(message({ number: 'C-1002' }, {}), toBc)).toBe('2026-03-01T10:00:02.000Z');
    bc.replay.assertDone();
  });

  it('refuses change tracking when the configuration is validated, with the reason: Business Central has no delta links', () => {
    const connections = [{ name: 'erp', type: 'businesscentral', settings: { tenantId: TENANT, company: 'CRONUS USA, Inc.' } }, { name: 'crm', type: 'sqlite', settings: { file: './crm.db' } }];
    const mappings = [{ name: 'customers', source: { entity: 'customers', key: ['id'] }, target: { entity: 'accounts', key: ['accountnumber'] }, fields: [{ target: 'accountnumber', source: 'number' }] }];
    const job = (name: string, source: string, watermark: Record<string, string>) => ({ name, order: 1, schedule: '0 * * * * *', source, target: source === 'erp' ? 'crm' : 'erp', mapping: 'customers', watermark });
    const options = { connectionTypes: defaultConnectorRegistry().connectionTypes() };
    expect(issueLines(() => validateConfig({ connections, mappings, jobs: [
      job('bc-delta', 'erp', { type: 'string', field: '@odata.deltaLink' }),
      job('bc-modified', 'erp', { type: 'datetime', field: 'lastModifiedDateTime' }),
      job('into-bc', 'crm', { type: 'string', field: '@odata.deltaLink' }),
    ] }, options))).toEqual([
      'jobs: jobs[0].watermark.field: @odata.deltaLink (change tracking) is not available from businesscentral: Business Central removed delta links in version 24 (2024 release wave 1); ' +
        'use watermark { type: datetime, field: lastModifiedDateTime } (deletions are then not seen)',
    ]);
  });

  it('names the companies there are when the configured one is not found', async () => {
    const bc = openBc(recording('customers-target').slice(0, 1), 'Fabrikam');
    await expect(bc.target().upsert(message({ number: 'C-1' }, {}), toBc)).rejects.toMatchObject({
      name: 'ConfigError',
      message: 'businesscentral connection "erp": settings.company: no company named "Fabrikam" (companies: "My Company", "CRONUS USA, Inc.")',
    });
    bc.replay.assertDone();
  });
});
