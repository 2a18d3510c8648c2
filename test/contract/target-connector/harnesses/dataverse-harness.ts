import type { BatchPart } from '../../../../connectors/odata/batch-multipart';
import { queryString } from '../../../../connectors/odata/odata-literals';
import type { Mapping } from '../../../../src/model/mapping';
import type { JsonValue } from '../../../../src/model/queue-message';
import { parseExactJson } from '../../../../connectors/odata/exact-json';
import { batchExchange, dataverseError, noContent, type PartAnswer } from '../../../unit/connectors/dataverse/batch-exchanges';
import { columnDefinitions, decimalPrecisions, moneyPrecisions } from '../../../unit/connectors/dataverse/column-definitions';
import { BYTES_VALUE, DECIMAL_VALUE, INT64_VALUES } from '../../value-matrix';
import { API, openDataverse } from '../../../unit/connectors/dataverse/dataverse-test-kit';
import type { RecordedExchange } from '../../../unit/connectors/odata/replay-fetch';
import { at, type CaseId, type ContractItem, targetKeyFor, type PreparedTarget, type PreparedValueTarget, type TargetHarness } from '../context';

/**
 * The contract on the Dataverse target against recorded Web API exchanges: each case's
 * requests exactly as the connector must send them, and Dataverse's answers as it writes them
 * (multipart `$batch`, `HTTP/1.1` status lines, its error codes), built by `batch-exchanges.ts`.
 * Entity `accounts`: key `accountnumber` (`A-<n>`), `name`, `numberofemployees` (Edm.Int32),
 * version `modifiedon`, parent lookup `parentaccountid` bound by account number, generated
 * `accountid`. Nothing is read back: the replay proves that every write went out as recorded.
 */
const mapping: Mapping = { name: 'contract', source: { entity: 'src', key: ['id'] }, target: { entity: 'accounts', key: ['accountnumber'] }, fields: [] };
const lookups = { accounts: { parentaccountid: { entitySet: 'accounts', key: 'accountnumber' } } };

const no = (n: number) => `A-${n}`;
const guid = (n: number) => `5a0f9a3e-3ef0-f011-8544-00000000000${n}`;
const url = (n: number) => `${API}accounts(accountnumber='${no(n)}')`;

/** The body Dataverse gets: the key is in the URL, the parent is bound by its account number. */
function body(item: { label?: string; qty?: JsonValue; parent?: number }): Record<string, JsonValue> {
  const fields: Record<string, JsonValue> = {};
  if (item.label !== undefined) fields.name = item.label;
  if (item.qty !== undefined) fields.numberofemployees = item.qty;
  if (item.parent !== undefined) fields['parentaccountid@odata.bind'] = `/accounts(accountnumber='${no(item.parent)}')`;
  return fields;
}

const patch = (n: number, item: { label?: string; qty?: JsonValue; parent?: number }, headers?: Record<string, string>): BatchPart => ({ method: 'PATCH', url: url(n), headers, body: body(item) });
const created = (n: number) => noContent(`accounts(${guid(n)})`);
const notFound = (n: number): PartAnswer => ({ status: 404, statusText: 'Not Found', body: dataverseError('0x80040217', `account With Id = accountnumber:${no(n)} Does Not Exist`) });
const keyMissing: PartAnswer = { status: 404, statusText: 'Not Found', body: dataverseError('0x80060891', 'A record with the specified key values does not exist in account entity') };
const missingSegment: PartAnswer = { status: 404, statusText: 'Not Found', body: dataverseError('0x8006088a', "Resource not found for the segment 'accounts_missing'.") };
const missingProperty: PartAnswer = {
  status: 400,
  statusText: 'Bad Request',
  body: dataverseError('0x80060888', "The property 'no_such_field' does not exist on type 'Microsoft.Dynamics.CRM.account'. Make sure to only use property names that are defined by the type."),
};
const row = (n: number, modifiedon: string): PartAnswer => ({ status: 200, statusText: 'OK', body: { '@odata.etag': `W/"80${n}"`, modifiedon, accountid: guid(n) } });
const read = (n: number): BatchPart => ({ method: 'GET', url: `${url(n)}${queryString([['$select', 'modifiedon']])}` });
const representation = { Prefer: 'return=representation' };

const SCRIPTS: Partial<Record<CaseId, RecordedExchange[]>> = {
  'applies-in-order': [
    batchExchange('write', [patch(3, { label: 'three', qty: 3 }), patch(1, { label: 'one', qty: 10 }), patch(2, { label: 'two', qty: 2 })], [created(3), created(1), created(2)]),
  ],
  'permanent-item-error': [
    batchExchange('write', [patch(1, { label: 'one', qty: 1 }), patch(2, { label: 'two', qty: 'many' }), patch(3, { label: 'three', qty: 3 })], [
      created(1),
      { status: 400, statusText: 'Bad Request', body: dataverseError('0x80048d19', "Error identified in Payload provided by the user for Entity :'accounts', Cannot convert the literal 'many' to the expected type 'Edm.Int32'.") },
      created(3),
    ]),
  ],
  'transitive-item-error': [
    batchExchange('write', [patch(2, { label: 'child', qty: 2, parent: 1 }), patch(3, { label: 'orphan', qty: 3, parent: 99 }), patch(4, { label: 'child too', qty: 4, parent: 1 })], [
      created(2), keyMissing, created(4),
    ]),
  ],
  'missing-key': [batchExchange('write', [patch(3, { label: 'three', qty: 3 })], [created(3)])],
  'group-failure': [
    {
      ...batchExchange('throttled', [patch(1, { label: 'new', qty: 10 }), patch(2, { label: 'two', qty: 2 })], []),
      response: { status: 429, headers: { 'Retry-After': '93' }, body: dataverseError('0x80072322', 'Number of requests exceeded the limit of 6000 over time window of 300 seconds.') },
    },
  ],
  'version-check': [
    batchExchange('read the versions', [read(1), read(2), read(3), read(5)], [row(1, at(10)), row(2, at(10)), row(3, at(10)), notFound(5)]),
    batchExchange('write the equal, the newer and the missing one', [
      patch(2, { label: 'after 2', qty: 20 }, { 'If-Match': 'W/"802"' }),
      patch(3, { label: 'after 3', qty: 30 }, { 'If-Match': 'W/"803"' }),
      patch(5, { label: 'after 5', qty: 50 }, { 'If-None-Match': '*' }),
    ], [noContent(), noContent(), created(5)]),
  ],
  // Dataverse's words for a wrong name, as Microsoft documents them ("Troubleshoot Dataverse Web API client errors").
  'missing-entity': [
    batchExchange('write to an entity set that does not exist', [1, 2].map((n) => ({ method: 'PATCH', url: `${API}accounts_missing(accountnumber='${no(n)}')`, body: body({ label: n === 1 ? 'one' : 'two', qty: n }) })), [
      missingSegment, missingSegment,
    ]),
  ],
  'missing-field': [
    batchExchange('write a property that does not exist', ([[1, { label: 'new', qty: 10 }], [2, { label: 'two', qty: 2 }]] as const).map(([n, item]) => ({ ...patch(n, item), body: { ...body(item), no_such_field: 'x' } })), [
      missingProperty, missingProperty,
    ]),
  ],
  deletes: [batchExchange('deletes', [1, 9, 3].map((n) => ({ method: 'DELETE', url: url(n) })), [noContent(), notFound(9), noContent()])],
  'response-fields': [
    batchExchange('write, returning the records', [patch(1, { qty: 5 }, representation), patch(2, { qty: 6 }, representation)], [
      { status: 200, statusText: 'OK', body: { '@odata.etag': 'W/"901"', accountid: guid(1), accountnumber: no(1), numberofemployees: 5 } },
      { status: 201, statusText: 'Created', body: { '@odata.etag': 'W/"902"', accountid: guid(2), accountnumber: no(2), numberofemployees: 6 } },
    ]),
  ],
};

/**
 * The value matrix on table `new_value` (entity set `new_values`, alternate key `new_ref`, an
 * Integer): `new_big` a BigInt, `new_rate` a Decimal (precision 10), `price` a Money (precision
 * 2), `description` a Memo, `entityimage` its image. Dataverse has no type for the matrix's
 * decimal (beyond a Decimal's range and precision), for microseconds (DateTime keeps seconds) or
 * for JSON: those are not written. The recorded `$batch` bodies are compared as text, so the
 * digits a double would round show; `read` gives a record as the request wrote it.
 */
const VALUE_ATTRIBUTES: Array<[string, string, string]> = [
  ['new_ref', 'Integer', 'IntegerType'], ['new_big', 'BigInt', 'BigIntType'], ['new_rate', 'Decimal', 'DecimalType'],
  ['price', 'Money', 'MoneyType'], ['description', 'Memo', 'MemoType'], ['entityimage', 'Virtual', 'ImageType'],
];
const valueUrl = (n: number) => `${API}new_values(new_ref=${n})`;
const definitions = () => [columnDefinitions('new_values', VALUE_ATTRIBUTES), decimalPrecisions('new_value'), moneyPrecisions('new_value')];
/** The bodies Dataverse gets, as JSON text: every digit of the BigInt, the image as base64. */
const MATRIX_BODIES = INT64_VALUES.map((digits, i) => `{"new_big":${digits},"entityimage":${i === 0 ? JSON.stringify(BYTES_VALUE.toString('base64')) : 'null'}}`);

const VALUE_SCRIPTS: Record<'write' | 'inexact', RecordedExchange[]> = {
  write: [...definitions(), batchExchange('the matrix', MATRIX_BODIES.map((text, i) => ({ method: 'PATCH', url: valueUrl(i + 1), body: text })), MATRIX_BODIES.map(() => noContent()), undefined, true)],
  // Only the value every column holds is sent; the others fail before the request.
  inexact: [...definitions(), batchExchange('the one writable item', [{ method: 'PATCH', url: valueUrl(5), body: '{}' }], [noContent()], undefined, true)],
};

function valueTarget(script: RecordedExchange[]): PreparedValueTarget {
  const dv = openDataverse(script);
  return {
    target: dv.target(),
    mapping: { name: 'values', source: { entity: 'src', key: ['id'] }, target: { entity: 'new_values', key: ['new_ref'] }, fields: [] },
    key: 'new_ref',
    columns: { int64: 'new_big', bytes: 'entityimage' },
    read: async (n) => {
      const batch = dv.replay.sent.find((r) => r.url.endsWith('$batch'))?.body ?? '';
      const part = batch.split(/\r\n--batch/).find((p) => p.includes(`PATCH ${valueUrl(n)} `)) ?? '';
      const text = part.trim().split('\r\n').at(-1) ?? '{}';
      const record = (parseExactJson(text) ?? JSON.parse(text)) as Record<string, unknown>;
      return { int64: record.new_big === null ? null : String(record.new_big), bytes: typeof record.entityimage === 'string' ? Buffer.from(record.entityimage, 'base64').toString('hex') : null };
    },
    inexact: [
      { column: 'new_big', value: '9223372036854775808' },
      { column: 'new_rate', value: DECIMAL_VALUE },
      { column: 'price', value: '12.345' },
      { column: 'description', value: { $binary: BYTES_VALUE.toString('base64') } },
    ],
    done: async () => dv.replay.assertDone(),
  };
}

export function dataverseHarness(): TargetHarness {
  let valueCase = 0;
  return {
    // The matrix cases run in order: the writes, then the values no column holds.
    prepareValues: async () => valueTarget(VALUE_SCRIPTS[valueCase++ === 0 ? 'write' : 'inexact']),
    prepare: async (scenario) => {
      const script = SCRIPTS[scenario.id];
      if (!script) throw new Error(`Dataverse contract harness: no recorded exchanges for case "${scenario.id}"`);
      const dv = openDataverse(script, { lookups });
      const prepared: PreparedTarget = {
        target: dv.target(),
        mapping,
        targetKeyOf: (item: ContractItem) => targetKeyFor(item, 'accountnumber', no),
        fieldsOf: (item: ContractItem) => {
          const fields: Record<string, JsonValue> = {};
          if (item.label !== undefined) fields.name = item.label;
          if (item.qty !== undefined) fields.numberofemployees = item.qty;
          if ('parent' in item && item.parent !== undefined) fields.parentaccountid = no(item.parent);
          return fields;
        },
        generatedField: 'accountid',
        generated: async (key) => guid(key),
        failGroup: async () => ({ name: 'TransientError', retryAfterMs: 93_000 }),
        done: async () => dv.replay.assertDone(),
      };
      return prepared;
    },
    close: async () => undefined,
  };
}
