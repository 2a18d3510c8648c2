import fs from 'node:fs';
import path from 'node:path';
import type { ConnectorContext } from '../../../../connectors/base/connector-context';
import { ConnectorRegistry } from '../../../../connectors/base/registry';
import { createBusinessCentralConnectorFactory } from '../../../../connectors/businesscentral';
import { JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage, type JsonValue } from '../../../../src/model/queue-message';
import { metadataExchange } from '../odata/check-kit';
import { type RecordedExchange, replayFetch } from '../odata/replay-fetch';

const TENANT = '11111111-2222-3333-4444-555555555555';
const COMPANY = 'f03f6225-081c-ec11-86bc-000d3a4a1b2c';
const API = `https://api.businesscentral.dynamics.com/v2.0/${TENANT}/production/api/v2.0/`;
const ROOT = `${API}companies(${COMPANY})/`;
const METADATA = fs.readFileSync(path.join(__dirname, 'recordings', 'metadata.xml'), 'utf8');
const toCustomers: Mapping = { name: 'to-customers', source: { entity: 'accounts', key: ['accountid'] }, target: { entity: 'customers', key: ['number'] }, fields: [] };
const LIMIT = '12345678901234567890.123456789012';

function open(exchanges: RecordedExchange[]) {
  const replay = replayFetch(exchanges);
  const warnings: string[] = [];
  const registry = new ConnectorRegistry([createBusinessCentralConnectorFactory({ fetch: replay.fetch, tokens: () => ({ getToken: async () => 't' }) })]);
  const ctx: ConnectorContext = {
    connection: { name: 'erp', type: 'businesscentral', settings: { tenantId: TENANT, company: COMPANY, auth: { kind: 'managedIdentity' } }, secrets: {}, maxConcurrency: 2 },
    resolveSecret: () => undefined,
    configDir: __dirname,
    warn: (m) => warnings.push(m),
  };
  return { replay, warnings, target: () => registry.createTarget(ctx) };
}

const message = (fields: Record<string, JsonValue>) =>
  createQueueMessage({ jobName: 'j', action: JobActionType.NewUpdate, sourceKey: String(fields.number), targetKey: { number: fields.number }, changeTracker: '1', fields });
const find = (number: string, value: unknown[]): RecordedExchange => ({
  request: { method: 'GET', url: `${ROOT}customers?$filter=number eq '${number}'&$select=id&$top=2` },
  response: { status: 200, body: { value } },
});

describe('Business Central target: values typed by the API route $metadata, read when a message carries digits', () => {
  it('writes an Edm.Decimal digit string as a JSON number with every digit, and a digit string of an Edm.String as text', async () => {
    const bc = open([
      metadataExchange(`${API}$metadata`, METADATA, 'the API route\'s $metadata, once'),
      find('10000', []),
      { request: { method: 'POST', url: `${ROOT}customers`, body: { number: '10000', creditLimit: Number(LIMIT) } }, response: { status: 201, body: { id: 'a', number: '10000' } } },
      find('20000', []),
      { request: { method: 'POST', url: `${ROOT}customers`, body: { number: '20000', creditLimit: 5 } }, response: { status: 201, body: { id: 'b', number: '20000' } } },
    ]);
    const target = bc.target();
    await target.upsert(message({ number: '10000', creditLimit: LIMIT }), toCustomers);
    await target.upsert(message({ number: '20000', creditLimit: 5 }), toCustomers);
    bc.replay.assertDone();
    // The replay compares parsed JSON; the text shows the digits a double would lose.
    const posts = bc.replay.sent.filter((r) => r.method === 'POST');
    expect(posts.map((r) => r.body)).toEqual([`{"number":"10000","creditLimit":${LIMIT}}`, '{"number":"20000","creditLimit":5}']);
    expect(posts[0].headers['content-type']).toBe('application/json');
    expect(bc.warnings).toEqual([]);
  });

  it('reads no $metadata while no message carries digits', async () => {
    const bc = open([
      find('C-1', []),
      { request: { method: 'POST', url: `${ROOT}customers`, body: { number: 'C-1', displayName: 'Adatum', creditLimit: 3 } }, response: { status: 201, body: { id: 'c' } } },
    ]);
    await bc.target().upsert(message({ number: 'C-1', displayName: 'Adatum', creditLimit: 3 }), toCustomers);
    bc.replay.assertDone();
  });

  it('fails, naming the property, a digit string an Edm.Decimal cannot take, before anything is sent for it', async () => {
    const bc = open([metadataExchange(`${API}$metadata`, METADATA)]);
    await expect(bc.target().upsert(message({ number: '30000', creditLimit: '12,5' }), toCustomers)).rejects.toMatchObject({
      name: 'PermanentError',
      message: 'property "creditLimit" of customers (Edm.Decimal): "12,5" is not a decimal number',
    });
    bc.replay.assertDone();
  });
});
