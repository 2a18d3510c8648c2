import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage, type JsonValue, type QueueMessage } from '../../../../src/model/queue-message';
import { type CapServer, startCapServer } from './cap-server';
import { type InterposedProxy, startInterposedProxy } from './interposed-proxy';
import { at, booksJob, openOdata, seedBooks } from './odata-test-kit';

const books: Mapping = {
  name: 'to-books',
  source: { entity: 'x', key: ['id'] },
  target: { entity: 'Books', key: ['ID'], versionField: 'modifiedAt' },
  fields: [{ target: 'ID', source: 'id' }, { target: 'title', source: 'title' }, { target: 'stock', source: 'stock' }],
};

/** Orders are found by their alternate key `number`; the service generates the UUID key `ID`. */
const orders: Mapping = {
  name: 'to-orders',
  source: { entity: 'x', key: ['no'] },
  target: { entity: 'Orders', key: ['number'] },
  fields: [{ target: 'number', source: 'no' }, { target: 'quantity', source: 'qty' }],
};

function message(targetKey: Record<string, JsonValue>, fields: Record<string, JsonValue>, action: QueueMessage['action'] = JobActionType.NewUpdate): QueueMessage {
  return createQueueMessage({ jobName: 'j', action, sourceKey: String(Object.values(targetKey)[0]), targetKey, changeTracker: '1', fields: { ...targetKey, ...fields } });
}

describe('OdataTarget against SAP CAP (OData V4, in-memory SQLite)', () => {
  let server: CapServer;
  let proxy: InterposedProxy;
  let odata: ReturnType<typeof openOdata>;
  const book = async (id: number) => (await server.sql('SELECT ID, title, stock FROM hw_Books WHERE ID = ?', [id]))[0];
  beforeAll(async () => {
    server = await startCapServer();
    proxy = await startInterposedProxy(new URL(server.url).origin);
    odata = openOdata(`${proxy.origin}/odata/v4/catalog/`, { settings: { entityKeys: { Orders: ['ID'] } } });
  });
  beforeEach(async () => {
    await seedBooks(server, [{ ID: 1, title: 'Emma', stock: 3, modifiedAt: at(1) }]);
    await server.sql('DELETE FROM hw_Orders');
    proxy.seen.length = 0;
  });
  afterAll(async () => {
    await odata?.close();
    await proxy?.stop();
    await server?.stop();
  });

  it('updates and deletes a record that has no ETag (a row written behind CAP) with If-Match: * (CAP answers 428 without one)', async () => {
    await seedBooks(server, [{ ID: 7, title: 'Sanditon', stock: 1, modifiedAt: null }]);
    const target = odata.target();
    await target.upsert(message({ ID: 7 }, { title: 'Sanditon (fragment)', stock: 2 }), books);
    expect(await book(7)).toEqual({ ID: 7, title: 'Sanditon (fragment)', stock: 2 });
    await server.sql('UPDATE hw_Books SET modifiedAt = NULL WHERE ID = 7');
    await target.delete(message({ ID: 7 }, {}, JobActionType.Delete), books);
    expect(await book(7)).toBeUndefined();
    const writes = proxy.seen.filter((r) => r.method !== 'GET');
    expect(writes.map((r) => [r.method, decodeURIComponent(r.url), r.headers['if-match']])).toEqual([
      ['PATCH', '/odata/v4/catalog/Books(ID=7)', '*'],
      ['DELETE', '/odata/v4/catalog/Books(ID=7)', '*'],
    ]);
  });

  it('creates a missing record (POST) and updates an existing one (PATCH with If-Match: its ETag)', async () => {
    const target = odata.target();
    await target.upsert(message({ ID: 2 }, { title: 'Persuasion', stock: 4 }), books);
    expect(await book(2)).toEqual({ ID: 2, title: 'Persuasion', stock: 4 });
    await target.upsert(message({ ID: 1 }, { title: 'Emma (2nd ed.)', stock: 5 }), books);
    expect(await book(1)).toEqual({ ID: 1, title: 'Emma (2nd ed.)', stock: 5 });
    const writes = proxy.seen.filter((r) => r.method !== 'GET');
    expect(writes.map((r) => [r.method, decodeURIComponent(r.url), r.headers['if-match'], JSON.parse(r.body)])).toEqual([
      ['POST', '/odata/v4/catalog/Books', undefined, { ID: 2, title: 'Persuasion', stock: 4 }],
      ['PATCH', '/odata/v4/catalog/Books(ID=1)', 'W/"2026-01-01T00:00:01.000Z"', { title: 'Emma (2nd ed.)', stock: 5 }],
    ]);
  });

  it('finds records by an alternate key and returns generated fields for a response job', async () => {
    const target = odata.target();
    const created = await target.upsert(message({ number: 'SO-1' }, { quantity: 2 }), orders, { responseMapping: [{ from: 'ID', to: 'orderId' }] });
    const [row] = await server.sql('SELECT ID, number, quantity FROM hw_Orders');
    expect(row).toEqual({ ID: expect.stringMatching(/^[0-9a-f-]{36}$/), number: 'SO-1', quantity: 2 });
    expect(created).toEqual({ returned: { ID: row.ID } });
    const updated = await target.upsert(message({ number: 'SO-1' }, { quantity: 9 }), orders, { responseMapping: [{ from: 'ID', to: 'orderId' }] });
    expect(updated).toEqual({ returned: { ID: row.ID } });
    expect(await server.sql('SELECT quantity FROM hw_Orders')).toEqual([{ quantity: 9 }]);
    expect(decodeURIComponent(proxy.seen.filter((r) => r.method === 'PATCH')[0].url)).toBe(`/odata/v4/catalog/Orders(ID=${row.ID})`);
  });

  it('deletes a record, and deleting a missing one succeeds', async () => {
    const target = odata.target();
    await target.delete(message({ ID: 1 }, {}, JobActionType.Delete), books);
    await target.delete(message({ ID: 1 }, {}, JobActionType.Delete), books);
    expect(await book(1)).toBeUndefined();
    expect(proxy.seen.filter((r) => r.method === 'DELETE').map((r) => r.headers['if-match'])).toEqual(['W/"2026-01-01T00:00:01.000Z"']);
  });

  it('invokes bound and unbound actions; a bound action on a missing record waits (transitive)', async () => {
    const target = odata.target();
    const job: Job = { ...booksJob, action: JobActionType.InvokeAction, actionName: 'Books/CatalogService.restock' };
    const invoke = (id: number) => ({ ...message({ ID: id }, {}, JobActionType.InvokeAction), actionParameters: { ID: id, amount: 4 } });
    await target.invokeAction(invoke(1), job);
    expect(await book(1)).toMatchObject({ stock: 7 });
    await expect(target.invokeAction(invoke(99), job)).rejects.toMatchObject({
      name: 'TransitiveError',
      message: 'Books: no record with {"ID":99} (yet) for action CatalogService.restock',
    });
    await target.invokeAction({ ...message({}, {}, JobActionType.InvokeAction), actionParameters: { amount: 0 } }, { ...job, actionName: 'resetStock' });
    expect(await book(1)).toMatchObject({ stock: 0 });
    expect(proxy.seen.filter((r) => r.method === 'POST').map((r) => [decodeURIComponent(r.url), JSON.parse(r.body)])).toEqual([
      ['/odata/v4/catalog/Books(ID=1)/CatalogService.restock', { amount: 4 }],
      ['/odata/v4/catalog/resetStock', { amount: 0 }],
    ]);
  });

  it('reads the target version for skip-outdated', async () => {
    const target = odata.target();
    expect(await target.getTargetVersion(message({ ID: 1 }, {}), books)).toBe('2026-01-01T00:00:01.000Z');
    expect(await target.getTargetVersion(message({ ID: 42 }, {}), books)).toBeNull();
  });

  it('writes a 64-bit key, a 64-bit integer and bytes exactly: the key bare in the URL, the values typed by $metadata', async () => {
    await server.sql('DELETE FROM hw_Values');
    const values: Mapping = { name: 'to-values', source: { entity: 'x', key: ['ID'] }, target: { entity: 'Values', key: ['ID'] }, fields: [] };
    const target = odata.target();
    const key = { ID: '9223372036854775807' };
    await target.upsert(message(key, { big: '-9223372036854775808', data: { $binary: Buffer.from([0, 1, 254, 255]).toString('base64') } }), values);
    await target.upsert(message(key, { big: '9007199254740993' }), values);
    const [row] = await server.sql('SELECT CAST(ID AS TEXT) AS ID, CAST(big AS TEXT) AS big, data FROM hw_Values');
    expect(row).toEqual({ ID: '9223372036854775807', big: '9007199254740993', data: Buffer.from([0, 1, 254, 255]).toString('base64') });
    const writes = proxy.seen.filter((r) => r.url.includes('Values'));
    expect(writes.map((r) => `${r.method} ${decodeURIComponent(r.url)}`)).toEqual([
      'GET /odata/v4/catalog/Values?$filter=ID eq 9223372036854775807&$select=ID&$top=2',
      'POST /odata/v4/catalog/Values',
      'GET /odata/v4/catalog/Values?$filter=ID eq 9223372036854775807&$select=ID&$top=2',
      'PATCH /odata/v4/catalog/Values(ID=9223372036854775807)',
    ]);
    expect(writes[1].headers['content-type']).toBe('application/json;IEEE754Compatible=true');
  });

  it('classifies what the service refuses: a value its property type cannot take permanent, 428 configuration, 429 transient with retryAfterMs', async () => {
    const target = odata.target();
    // Typed by $metadata: refused before it is sent, naming the property and its type.
    await expect(target.upsert(message({ ID: 3 }, { stock: 'many' }), books)).rejects.toMatchObject({
      name: 'PermanentError',
      message: 'property "stock" of Books (Edm.Int32): "many" is not an integer',
    });
    const patching = openOdata(`${proxy.origin}/odata/v4/catalog/`, { settings: { upsertMode: 'patch' } });
    await expect(patching.target().upsert(message({ ID: 1 }, { stock: 1 }), books)).rejects.toMatchObject({
      name: 'ConfigError',
      message: 'odata connection "catalog": upsert Books(ID=1): the service requires If-Match: use upsertMode read-then-write (PATCH 428): Precondition Required',
    });
    await patching.close();
    proxy.intercept = (req) => (req.method === 'POST' ? { status: 429, headers: { 'retry-after': '30' }, body: '{"error":{"code":"429","message":"slow down"}}' } : undefined);
    await expect(target.upsert(message({ ID: 4 }, { stock: 1 }), books)).rejects.toMatchObject({ name: 'TransientError', retryAfterMs: 30_000 });
    proxy.intercept = undefined;
    // A write is not retried by the connector: the processor decides when.
    expect(proxy.seen.filter((r) => r.method === 'POST')).toHaveLength(1);
  });
});
