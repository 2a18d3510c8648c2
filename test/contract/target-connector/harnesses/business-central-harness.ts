import type { ConnectorContext } from '../../../../connectors/base/connector-context';
import { ConnectorRegistry } from '../../../../connectors/base/registry';
import { createBusinessCentralConnectorFactory } from '../../../../connectors/businesscentral';
import { queryString } from '../../../../connectors/odata/odata-literals';
import type { Mapping } from '../../../../src/model/mapping';
import type { JsonValue } from '../../../../src/model/queue-message';
import { type RecordedExchange, replayFetch } from '../../../unit/connectors/odata/replay-fetch';
import { at, type CaseId, type ContractItem, targetKeyFor, type TargetHarness } from '../context';

/**
 * The contract on the Business Central target against recorded API v2.0 exchanges: JSON
 * `$batch` requests exactly as the connector must send them (a read round, then a write round
 * at `id` with `If-Match`), answered as BC answers them (`responses[]` with `id`, `status`,
 * `headers`, `body`; its error codes). Entity `customers`: key `number` (`C-<n>`),
 * `displayName`, `creditLimit`, version `lastModifiedDateTime`, generated `id`.
 */
const TENANT = '11111111-2222-3333-4444-555555555555';
const COMPANY = '5d115c9c-44e3-ea11-bb43-000d3a2feca1';
const ROOT = `https://api.businesscentral.dynamics.com/v2.0/${TENANT}/production/api/v2.0/companies(${COMPANY})/`;
const mapping: Mapping = { name: 'contract', source: { entity: 'src', key: ['id'] }, target: { entity: 'customers', key: ['number'] }, fields: [] };

const no = (n: number) => `C-${n}`;
const id = (n: number) => `9f1a2b3c-0000-0000-0000-00000000000${n}`;
const etag = (n: number) => `W/"JzE5OzE2NjIzMDk1NTAx${n}OzAwOyc="`;
const JSON_HEADERS = { 'content-type': 'application/json; odata.metadata=minimal; odata.streaming=true', 'odata-version': '4.0' };

type Op = { method: string; url: string; headers?: Record<string, string>; body?: Record<string, JsonValue> };
type Answer = { status: number; body?: unknown };

/** One JSON `$batch` round: the operations as the connector numbers them, and BC's answers. */
function round(note: string, ops: Op[], answers: Answer[]): RecordedExchange {
  const requests = ops.map((op, i) => ({
    id: String(i + 1), method: op.method, url: op.url,
    headers: { ...(op.body === undefined ? {} : { 'content-type': 'application/json' }), ...op.headers },
    ...(op.body === undefined ? {} : { body: op.body }),
  }));
  const responses = answers.map((a, i) => ({ id: String(i + 1), status: a.status, headers: a.body === undefined ? {} : JSON_HEADERS, ...(a.body === undefined ? {} : { body: a.body }) }));
  return { note, request: { method: 'POST', url: `${ROOT}$batch`, headers: { prefer: 'odata.continue-on-error' }, body: { requests } }, response: { status: 200, body: { responses } } };
}

function fields(item: { label?: string; qty?: JsonValue }): Record<string, JsonValue> {
  const f: Record<string, JsonValue> = {};
  if (item.label !== undefined) f.displayName = item.label;
  if (item.qty !== undefined) f.creditLimit = item.qty;
  return f;
}

const find = (n: number, version = false): Op => ({ method: 'GET', url: `customers${queryString([['$filter', `number eq '${no(n)}'`], ['$select', version ? 'id,lastModifiedDateTime' : 'id'], ['$top', '2']])}` });
const none: Answer = { status: 200, body: { value: [] } };
const found = (n: number, lastModifiedDateTime?: string): Answer => ({ status: 200, body: { value: [{ '@odata.etag': etag(n), id: id(n), ...(lastModifiedDateTime ? { lastModifiedDateTime } : {}) }] } });
const post = (n: number, item: { label?: string; qty?: JsonValue }, headers?: Record<string, string>): Op => ({ method: 'POST', url: 'customers', headers, body: { number: no(n), ...fields(item) } });
const update = (n: number, item: { label?: string; qty?: JsonValue }, headers?: Record<string, string>): Op => ({ method: 'PATCH', url: `customers(${id(n)})`, headers: { 'if-match': etag(n), ...headers }, body: { number: no(n), ...fields(item) } });
const record = (n: number, item: { label?: string; qty?: JsonValue }) => ({ '@odata.etag': etag(n), id: id(n), number: no(n), displayName: item.label ?? '', creditLimit: item.qty ?? 0 });
const wrote = (status: 200 | 201, n: number, item: { label?: string; qty?: JsonValue }): Answer => ({ status, body: record(n, item) });
const representation = { prefer: 'return=representation' };

const SCRIPTS: Partial<Record<CaseId, RecordedExchange[]>> = {
  'applies-in-order': [
    round('find', [find(3), find(1), find(2)], [none, found(1), none]),
    round('write', [post(3, { label: 'three', qty: 3 }), update(1, { label: 'one', qty: 10 }), post(2, { label: 'two', qty: 2 })], [
      wrote(201, 3, { label: 'three', qty: 3 }), wrote(200, 1, { label: 'one', qty: 10 }), wrote(201, 2, { label: 'two', qty: 2 }),
    ]),
  ],
  'permanent-item-error': [
    round('find', [find(1), find(2), find(3)], [none, none, none]),
    round('write', [post(1, { label: 'one', qty: 1 }), post(2, { label: 'two', qty: 'many' }), post(3, { label: 'three', qty: 3 })], [
      wrote(201, 1, { label: 'one', qty: 1 }),
      { status: 400, body: { error: { code: 'BadRequest', message: "Cannot convert the literal 'many' to the expected type 'Edm.Decimal'.  CorrelationId:  2f0b6e1c-6f7b-4a8e-9f3c-0d1e2f3a4b5c." } } },
      wrote(201, 3, { label: 'three', qty: 3 }),
    ]),
  ],
  'missing-key': [round('find', [find(3)], [none]), round('write', [post(3, { label: 'three', qty: 3 })], [wrote(201, 3, { label: 'three', qty: 3 })])],
  'group-failure': [
    {
      ...round('find, throttled', [find(1), find(2)], []),
      response: { status: 429, headers: { 'retry-after': '30' }, body: { error: { code: 'Application_TooManyRequests', message: 'Too many requests reached.' } } },
    },
  ],
  'version-check': [
    round('find with versions', [find(1, true), find(2, true), find(3, true), find(5, true)], [found(1, at(10)), found(2, at(10)), found(3, at(10)), none]),
    round('write the equal, the newer and the missing one', [update(2, { label: 'after 2', qty: 20 }), update(3, { label: 'after 3', qty: 30 }), post(5, { label: 'after 5', qty: 50 })], [
      wrote(200, 2, { label: 'after 2', qty: 20 }), wrote(200, 3, { label: 'after 3', qty: 30 }), wrote(201, 5, { label: 'after 5', qty: 50 }),
    ]),
  ],
  // BC (Microsoft's OData library) names a wrong entity set or property as Dataverse does.
  'missing-entity': [
    round('find in an entity set that does not exist', [1, 2].map((n) => ({ ...find(n), url: find(n).url.replace(/^customers/, 'customers_missing') })), [
      { status: 404, body: { error: { code: 'BadRequest_NotFound', message: "Resource not found for the segment 'customers_missing'.  CorrelationId:  7c1d0e2f-3a4b-4c5d-8e9f-0a1b2c3d4e5f." } } },
      { status: 404, body: { error: { code: 'BadRequest_NotFound', message: "Resource not found for the segment 'customers_missing'.  CorrelationId:  8d2e1f3a-4b5c-4d6e-9f0a-1b2c3d4e5f6a." } } },
    ]),
  ],
  'missing-field': [
    round('find', [find(1), find(2)], [found(1), none]),
    round('write a property that does not exist', [update(1, { label: 'new', qty: 10 }), post(2, { label: 'two', qty: 2 })].map((op) => ({ ...op, body: { ...op.body, no_such_field: 'x' } })), [
      { status: 400, body: { error: { code: 'BadRequest', message: "The property 'no_such_field' does not exist on type 'Microsoft.NAV.customer'. Make sure to only use property names that are defined by the type.  CorrelationId:  9e3f2a4b-5c6d-4e7f-8a9b-2c3d4e5f6a7b." } } },
      { status: 400, body: { error: { code: 'BadRequest', message: "The property 'no_such_field' does not exist on type 'Microsoft.NAV.customer'. Make sure to only use property names that are defined by the type.  CorrelationId:  0f4a3b5c-6d7e-4f8a-9b0c-3d4e5f6a7b8c." } } },
    ]),
  ],
  deletes: [
    round('find', [find(1), find(9), find(3)], [found(1), none, found(3)]),
    round('delete the found ones', [1, 3].map((n) => ({ method: 'DELETE', url: `customers(${id(n)})`, headers: { 'if-match': etag(n) } })), [{ status: 204 }, { status: 204 }]),
  ],
  'response-fields': [
    round('find', [find(1), find(2)], [found(1), none]),
    round('write, returning the records', [update(1, { qty: 5 }, representation), post(2, { qty: 6 }, representation)], [wrote(200, 1, { qty: 5 }), wrote(201, 2, { qty: 6 })]),
  ],
};

export function businessCentralHarness(): TargetHarness {
  return {
    prepare: async (scenario) => {
      const script = SCRIPTS[scenario.id];
      if (!script) throw new Error(`Business Central contract harness: no recorded exchanges for case "${scenario.id}"`);
      const replay = replayFetch(script);
      const registry = new ConnectorRegistry([createBusinessCentralConnectorFactory({ fetch: replay.fetch, tokens: () => ({ getToken: async () => 'test-token' }) })]);
      const ctx: ConnectorContext = {
        connection: { name: 'erp', type: 'businesscentral', settings: { tenantId: TENANT, company: COMPANY, auth: { kind: 'managedIdentity' } }, secrets: {}, maxConcurrency: 4 },
        resolveSecret: () => undefined,
        configDir: __dirname,
      };
      return {
        target: registry.createTarget(ctx),
        mapping,
        targetKeyOf: (item: ContractItem) => targetKeyFor(item, 'number', no),
        fieldsOf: (item: ContractItem) => fields(item),
        generatedField: 'id',
        generated: async (key) => id(key),
        failGroup: async () => ({ name: 'TransientError', retryAfterMs: 30_000 }),
        done: async () => replay.assertDone(),
      };
    },
    close: async () => undefined,
  };
}
