import { ConnectorRegistry } from '../../../../connectors/base/registry';
import { createOdataConnectorFactory, OdataHttpClient, type FetchLike } from '../../../../connectors/odata';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { metadataExchange } from './check-kit';
import { type RecordedExchange, replayFetch } from './replay-fetch';
import { keySegment, literal } from '../../../../connectors/odata/odata-literals';
import { NO_MODEL, optionalServiceModel, serviceModel } from '../../../../connectors/odata/service-model';
import { canonicalDecimal, ExactNumber, exactJsonText, readTypedRow, typedRecord, typedValue } from '../../../../connectors/odata/typed-values';
import { plainRecord } from '../../../../src/model/exact-values';

const TYPES = new Map([
  ['id', 'Edm.Int64'],
  ['small', 'Edm.Int32'],
  ['amount', 'Edm.Decimal'],
  ['data', 'Edm.Binary'],
  ['name', 'Edm.String'],
]);

describe('values typed by $metadata', () => {
  it('writes Int64 and Decimal digit strings as exact numbers: bare in keys and filters, every digit in bodies', () => {
    const id = typedValue('9223372036854775807', 'Edm.Int64', 'property "id"');
    expect(id).toBeInstanceOf(ExactNumber);
    expect(typedValue('42', 'Edm.Int64', 'property "id"')).toBe(42);
    expect(keySegment([['id', id]], true, 'key')).toBe('(9223372036854775807)');
    expect(literal(typedValue('12345678901234567890.123456789012', 'Edm.Decimal', 'p'), 'p')).toBe('12345678901234567890.123456789012');
    // Untyped (no $metadata), a digit string stays a quoted string literal.
    expect(keySegment([['id', '9223372036854775807']], true, 'key')).toBe("('9223372036854775807')");
    const body = typedRecord({ id: '9223372036854775807', amount: '0.10', name: '9223372036854775807', small: 3 }, TYPES, 'Values');
    expect(exactJsonText(body)).toBe('{"id":9223372036854775807,"amount":0.10,"name":"9223372036854775807","small":3}');
    expect(exactJsonText(body, true)).toBe('{"id":"9223372036854775807","amount":"0.10","name":"9223372036854775807","small":3}');
    // A record without such values is not copied, and its text is JSON.stringify's.
    const plain = { name: 'x', small: 1 };
    expect(typedRecord(plain, TYPES, 'Values')).toBe(plain);
    expect(exactJsonText({ text: '\u0000exact:1' })).toBe(JSON.stringify({ text: '\u0000exact:1' }));
  });

  it('writes decimal text as valid JSON and OData numbers, every digit and the scale kept', () => {
    expect(['+5', '.50', '007', '1.', '-0.0100', ' 12 ', '1E3', '-1.5e-7'].map(canonicalDecimal)).toEqual(['5', '0.50', '7', '1', '-0.0100', '12', '1e3', '-1.5e-7']);
    expect(['', '.', '1,5', 'e5', '1e', 'NaN'].map(canonicalDecimal)).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
    expect(exactJsonText(typedRecord({ a: '+.5' }, new Map([['a', 'Edm.Decimal']]), 'S'))).toBe('{"a":0.5}');
  });

  it('refuses, naming the property, a value its type cannot take', () => {
    expect(() => typedValue('9223372036854775808', 'Edm.Int64', 'property "id" of Values')).toThrow('property "id" of Values (Edm.Int64): 9223372036854775808 is beyond 64 bits');
    expect(() => typedValue('1.5', 'Edm.Int32', 'property "small" of Values')).toThrow('property "small" of Values (Edm.Int32): "1.5" is not an integer');
    expect(() => typedValue('ten', 'Edm.Decimal', 'property "amount" of Values')).toThrow('property "amount" of Values (Edm.Decimal): "ten" is not a decimal number');
    expect(() => typedRecord({ small: 'x' }, TYPES, 'Values')).toThrow(expect.objectContaining({ name: 'PermanentError' }));
  });

  it('writes a JSON document beyond a double ({"$jsonText"}) as the document itself where the property takes any JSON, as text into Edm.String, and refuses other types', async () => {
    const doc = '{"id": 12345678901234567890, "price": 0.1000000000000000055511151231257827, "ok": [1, 2.5]}';
    const types = new Map([...TYPES, ['untyped', 'Edm.Untyped'], ['address', 'ns.Address'], ['list', 'Collection(Edm.Decimal)']]);
    const record = plainRecord({ id: '9223372036854775807', untyped: { $jsonText: doc }, address: { $jsonText: doc }, list: { $jsonText: '[0.1000000000000000055511151231257827]' }, name: { $jsonText: doc } });
    const body = typedRecord(record, types, 'Values');
    const expected = `{"id":%ID%,"untyped":${doc},"address":${doc},"list":[0.1000000000000000055511151231257827],"name":${JSON.stringify(doc)}}`;
    expect(exactJsonText(body)).toBe(expected.replace('%ID%', '9223372036854775807'));
    expect(exactJsonText(body, true)).toBe(expected.replace('%ID%', '"9223372036854775807"')); // the document's numbers stay numbers
    // Untyped (no $metadata): the document as it is; in a JSON $batch too.
    const fetched: string[] = [];
    const fetch: FetchLike = async (_url, init) => {
      fetched.push(String(init.body));
      return new Response(null, { status: 204 });
    };
    const http = new OdataHttpClient({ serviceRoot: 'http://127.0.0.1:1/svc/', label: 'c', fetch });
    await http.request({ method: 'PATCH', url: 'Values(1)', body: plainRecord({ doc: { $jsonText: doc } }), operation: 'update' });
    expect(fetched).toEqual([`{"doc":${doc}}`]);
    expect(() => typedRecord(plainRecord({ small: { $jsonText: doc } }), TYPES, 'Values')).toThrow(
      'property "small" of Values (Edm.Int32): a JSON document with numbers beyond a double can be written only to an Edm.String, Edm.Untyped, complex or collection property',
    );
  });

  it('reads Edm.Binary (either base64 alphabet) as bytes and an Int64 string a double holds as a number', () => {
    const row = { id: '7', big: '9223372036854775807', data: 'AAEC_w==', text: 'AAEC_w==', amount: '1.10' };
    const typed = readTypedRow(row, new Map([...TYPES, ['big', 'Edm.Int64']]));
    expect(typed).toEqual({ id: 7, big: '9223372036854775807', data: Buffer.from([0, 1, 2, 255]), text: 'AAEC_w==', amount: '1.10' });
    expect(readTypedRow({ data: 'AAEC/w==' }, TYPES).data).toEqual(Buffer.from([0, 1, 2, 255]));
    const untouched = { name: 'x', small: 1 };
    expect(readTypedRow(untouched, TYPES)).toBe(untouched);
    expect(readTypedRow(untouched, undefined)).toBe(untouched);
  });
});

describe('the service model', () => {
  const xml = '<Edmx><EntityType Name="V"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int64"/></EntityType><EntitySet Name="Values" EntityType="ns.V"/></Edmx>';

  it('reads $metadata once per client, with the IEEE754Compatible media type on JSON requests', async () => {
    const seen: Array<[string, string]> = [];
    const fetch: FetchLike = async (url, init) => {
      seen.push([url, (init.headers as Record<string, string>).Accept]);
      return new Response(xml, { status: 200, headers: { 'content-type': 'application/xml' } });
    };
    const http = new OdataHttpClient({ serviceRoot: 'http://127.0.0.1:1/svc/', label: 'c', fetch, ieee754Compatible: true });
    const [a, b] = await Promise.all([serviceModel(http), optionalServiceModel(http)]);
    expect(a).toBe(b);
    expect(a.get('Values')?.columns.get('ID')?.type).toBe('Edm.Int64');
    expect(seen).toEqual([['http://127.0.0.1:1/svc/$metadata', 'application/xml']]);
    expect(http.jsonType).toBe('application/json;IEEE754Compatible=true');
  });

  it('goes on untyped, with one warning naming the connection, when a service has no usable $metadata', async () => {
    let calls = 0;
    const fetch: FetchLike = async () => {
      calls++;
      return new Response('{"error":{"code":"404","message":"No such resource"}}', { status: 404, headers: { 'content-type': 'application/json' } });
    };
    const warnings: string[] = [];
    const http = new OdataHttpClient({ serviceRoot: 'http://127.0.0.1:1/svc/', label: 'odata connection "legacy"', fetch });
    expect(await optionalServiceModel(http, (m) => warnings.push(m))).toBe(NO_MODEL);
    expect(await optionalServiceModel(http, (m) => warnings.push(m))).toBe(NO_MODEL);
    expect(calls).toBe(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^odata connection "legacy": \$metadata could not be read \(odata connection "legacy": read \$metadata: .*No such resource.*\); values are read and written without their declared types/);
    expect(http.jsonType).toBe('application/json');
  });
});

describe('a service whose $metadata fails for a while', () => {
  it('fails the call (nothing kept) when the service is down or refuses the credentials, and reads again next time', async () => {
    const answers = [
      new Response('{"error":{"code":"503","message":"Service Unavailable"}}', { status: 502, headers: { 'content-type': 'application/json' } }),
      new Response('{"error":{"code":"401","message":"Unauthorized"}}', { status: 401, headers: { 'content-type': 'application/json' } }),
      new Response('<Edmx><EntityType Name="V"><Property Name="data" Type="Edm.Binary"/></EntityType><EntitySet Name="Values" EntityType="ns.V"/></Edmx>', { status: 200 }),
    ];
    const fetch: FetchLike = async () => answers.shift()!;
    const warnings: string[] = [];
    const http = new OdataHttpClient({ serviceRoot: 'http://127.0.0.1:1/svc/', label: 'odata connection "flaky"', fetch });
    await expect(optionalServiceModel(http, (m) => warnings.push(m))).rejects.toMatchObject({ name: 'TransientError' });
    await expect(optionalServiceModel(http, (m) => warnings.push(m))).rejects.toMatchObject({ name: 'ConfigError' });
    expect((await optionalServiceModel(http, (m) => warnings.push(m))).get('Values')?.columns.get('data')?.type).toBe('Edm.Binary');
    expect(warnings).toEqual([]);
  });

  it('warns once when the document names no entity set (an HTML page, a V2 service)', async () => {
    const fetch: FetchLike = async () => new Response('<html>Sign in</html>', { status: 200, headers: { 'content-type': 'text/html' } });
    const warnings: string[] = [];
    const http = new OdataHttpClient({ serviceRoot: 'http://127.0.0.1:1/svc/', label: 'odata connection "portal"', fetch });
    expect((await optionalServiceModel(http, (m) => warnings.push(m))).size).toBe(0);
    await optionalServiceModel(http, (m) => warnings.push(m));
    expect(warnings).toEqual([
      'odata connection "portal": $metadata could not be read (the document names no entity set); values are read and written without their declared types (Edm.Binary as base64 text, Edm.Int64 keys quoted as text)',
    ]);
  });
});

describe('an odata source typed by $metadata', () => {
  const ROOT = 'http://127.0.0.1:1/svc/';
  const xml = '<Edmx><EntityType Name="V"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int64"/>' +
    '<Property Name="data" Type="Edm.Binary"/></EntityType><EntitySet Name="Values" EntityType="ns.V"/></Edmx>';
  const mapping: Mapping = { name: 'v', source: { entity: 'Values', key: ['ID'] }, target: { entity: 't', key: ['ref'] }, fields: [{ target: 'ref', source: 'ID' }, { target: 'bytes', source: 'data' }] };
  const job: Job = {
    name: 'v', order: 1, schedule: '0 * * * * *', enabled: true, source: 'src', target: 'tgt', mapping: 'v', priority: 'normal',
    watermark: { type: 'string', field: '@odata.deltaLink' }, action: JobActionType.NewUpdate, filter: [], skipOutdatedMessages: false, skipUnchanged: false, pageSize: 100, lookbackSeconds: 0,
  };
  const read: RecordedExchange = {
    note: 'the first tracked read',
    request: { method: 'GET', url: `${ROOT}Values?$select=ID,data`, headers: { accept: 'application/json;IEEE754Compatible=true' } },
    response: { status: 200, body: { value: [{ ID: '9223372036854775807', data: 'AAEC_w==' }], '@odata.deltaLink': `${ROOT}Values?$deltatoken=1` } },
  };

  async function messages(exchanges: RecordedExchange[], warnings: string[] = []) {
    const replay = replayFetch(exchanges);
    const registry = new ConnectorRegistry([createOdataConnectorFactory({ fetch: replay.fetch })]);
    const source = registry.createSource({
      connection: { name: 'svc', type: 'odata', settings: { serviceUrl: ROOT }, secrets: {}, maxConcurrency: 2 },
      resolveSecret: () => undefined,
      configDir: __dirname,
      warn: (m) => warnings.push(m),
    });
    const out = [];
    for await (const page of source.retrieveChanges(mapping, job, WatermarkValue.initialize('string', null))) out.push(...page.messages);
    replay.assertDone();
    return out;
  }

  it('reads Edm.Binary as bytes ({"$binary": …}) and keeps a 64-bit key exact, also on change-tracking reads', async () => {
    const [message] = await messages([read, metadataExchange(`${ROOT}$metadata`, xml)]);
    expect(message.sourceKey).toBe('9223372036854775807');
    expect(message.fields).toEqual({ ref: '9223372036854775807', bytes: { $binary: Buffer.from([0, 1, 2, 255]).toString('base64') } });
  });

  it('reads untyped, with a warning, when the service has no $metadata', async () => {
    const warnings: string[] = [];
    const missing: RecordedExchange = { note: 'no $metadata', request: { method: 'GET', url: `${ROOT}$metadata` }, response: { status: 404, body: { error: { code: '404', message: 'Not found' } } } };
    const [message] = await messages([read, missing], warnings);
    expect(message.fields).toEqual({ ref: '9223372036854775807', bytes: 'AAEC_w==' });
    expect(warnings).toEqual([expect.stringMatching(/^odata connection "svc": \$metadata could not be read \(.*Not found.*\); values are read and written without their declared types/)]);
  });
});
