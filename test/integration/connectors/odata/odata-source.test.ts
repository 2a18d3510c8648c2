import { JobActionType } from '../../../../src/model/job';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { type CapServer, startCapServer } from './cap-server';
import { type InterposedProxy, startInterposedProxy } from './interposed-proxy';
import { at, booksJob as job, booksMapping as mapping, ids, instantClock, openOdata, readRun, seedBooks } from './odata-test-kit';

const fresh = () => WatermarkValue.initialize('datetime', null);

describe('OdataSource against SAP CAP (OData V4, in-memory SQLite)', () => {
  let server: CapServer;
  let proxy: InterposedProxy;
  let odata: ReturnType<typeof openOdata>;
  beforeAll(async () => {
    server = await startCapServer();
    proxy = await startInterposedProxy(new URL(server.url).origin);
    odata = openOdata(server.url);
  });
  afterEach(() => {
    proxy.intercept = undefined;
    proxy.rewrite = undefined;
  });
  afterAll(async () => {
    await odata?.close();
    await proxy?.stop();
    await server?.stop();
  });

  it('loads everything across server pages first, then only what changed', async () => {
    await seedBooks(server, [1, 2, 3, 4, 5, 6, 7].map((ID) => ({ ID, modifiedAt: at(ID), title: `Book ${ID}` })));
    const source = odata.source();
    const watermark = fresh();
    const first = await readRun(source, mapping, job, watermark);
    // The server's page limit (3) wins over the requested odata.maxpagesize (2).
    expect(first.pages.map((p) => [p.rowCount, p.hasMore])).toEqual([[3, true], [3, true], [1, false]]);
    expect(ids(first.messages)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(first.messages[0]).toMatchObject({
      action: 'NewUpdate', targetKey: { id: 1 }, fields: { id: 1, title: 'BOOK 1', stock: 1 }, changeTracker: '2026-01-01T00:00:01.0000000Z',
    });
    expect(watermark.value).toBe('2026-01-01T00:00:07.0000000Z');

    await server.sql('UPDATE hw_Books SET title = ?, modifiedAt = ? WHERE ID = 2', ['Jane Eyre', at(9)]);
    await server.sql('INSERT INTO hw_Books (ID, title, stock, modifiedAt) VALUES (8, ?, 3, ?)', ['Emma', at(8)]);
    const second = await readRun(source, mapping, job, watermark);
    expect(ids(second.messages)).toEqual([8, 2]);
    expect(second.messages[1].fields).toEqual({ id: 2, title: 'JANE EYRE', stock: 1 });
    expect((await readRun(source, mapping, job, watermark)).messages).toEqual([]);
  });

  it('leaves changes stamped in the current second (by the service\'s Date header) to the next run, so one written later in that second is not lost', async () => {
    const second = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();
    const older = new Date(Date.parse(second) - 10_000).toISOString();
    await seedBooks(server, [{ ID: 1, modifiedAt: older }, { ID: 2, modifiedAt: second }]);
    const settleJob = { ...job, settleSeconds: 1 };
    const watermark = fresh();
    expect(ids((await readRun(odata.source(), mapping, settleJob, watermark)).messages)).toEqual([1]);
    await server.sql('INSERT INTO hw_Books (ID, title, stock, modifiedAt) VALUES (3, ?, 3, ?)', ['Late', second]);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect(ids((await readRun(odata.source(), mapping, settleJob, watermark)).messages)).toEqual([2, 3]);
    expect((await readRun(odata.source(), mapping, settleJob, watermark)).messages).toEqual([]);
  });

  it('asks for $select of the mapped fields, $filter between the bounds and $orderby watermark then key, after reading $metadata once', async () => {
    await seedBooks(server, [1, 2].map((ID) => ({ ID, modifiedAt: at(ID) })));
    const viaProxy = openOdata(`${proxy.origin}/odata/v4/catalog/`);
    await readRun(viaProxy.source(), mapping, job, WatermarkValue.initialize('datetime', at(1)));
    await viaProxy.close();
    const [bound, metadata, read] = proxy.seen.slice(-3);
    expect(decodeURIComponent(bound.url)).toBe('/odata/v4/catalog/Books?$select=modifiedAt&$filter=modifiedAt ne null&$orderby=modifiedAt desc&$top=1');
    // Property types (Edm.Binary, Edm.Int64) from $metadata, once per connection.
    expect(metadata.url).toBe('/odata/v4/catalog/$metadata');
    expect(decodeURIComponent(read.url)).toBe(
      '/odata/v4/catalog/Books?$select=ID,modifiedAt,title,stock&$filter=modifiedAt gt 2026-01-01T00:00:01.0000000Z and modifiedAt le 2026-01-01T00:00:02.0000000Z&$orderby=modifiedAt asc,ID asc',
    );
    expect(read.headers).toMatchObject({ prefer: 'odata.maxpagesize=2', 'odata-version': '4.0', accept: 'application/json;IEEE754Compatible=true' });
  });

  it('loses no record that changes while a run reads (key-based skip tokens)', async () => {
    await seedBooks(server, [1, 2, 3, 4, 5, 6, 7].map((ID) => ({ ID, modifiedAt: at(ID) })));
    const source = odata.source();
    const watermark = fresh();
    const seen: number[] = [];
    let pages = 0;
    for await (const page of source.retrieveChanges(mapping, job, watermark)) {
      if (pages++ === 0) {
        // While the run reads: a read record and an unread one change, a new one arrives.
        await server.sql('UPDATE hw_Books SET modifiedAt = ? WHERE ID IN (1, 5)', [at(20)]);
        await server.sql('INSERT INTO hw_Books (ID, title, stock, modifiedAt) VALUES (9, ?, 1, ?)', ['New', at(21)]);
      }
      for (const m of page.messages) {
        seen.push(Number(m.sourceKey));
        watermark.advance(m.changeTracker);
      }
    }
    expect(seen).toEqual([1, 2, 3, 4, 6, 7]);
    expect(ids((await readRun(source, mapping, job, watermark)).messages)).toEqual([1, 5, 9]);
  });

  it('applies the job filter on the server, soft deletes and resolvers on the records read', async () => {
    await seedBooks(server, [
      { ID: 1, modifiedAt: at(1), author: 'Jane Austen', stock: 0 },
      { ID: 2, modifiedAt: at(2), author: 'Edgar Allen Poe', stock: 5 },
      { ID: 3, modifiedAt: at(3), author: "O'Hara", stock: 2 },
    ]);
    const filtered = {
      ...job,
      filter: [{ field: 'author', op: 'notIn' as const, value: ['Edgar Allen Poe'] }],
      softDelete: { field: 'stock', op: 'eq' as const, value: 0 },
    };
    const withResolver = {
      ...mapping,
      fields: [...mapping.fields, { target: 'firstStock', source: 'author', resolver: { entity: 'Books', matchField: 'author', returnField: 'stock' } }],
    };
    const { messages } = await readRun(odata.source(), withResolver, filtered, fresh());
    expect(messages.map((m) => [m.sourceKey, m.action, m.fields.firstStock])).toEqual([
      ['1', JobActionType.Delete, 0],
      ['3', JobActionType.NewUpdate, 2],
    ]);
  });

  it('follows absolute next links and refuses links to another origin', async () => {
    await seedBooks(server, [1, 2, 3, 4].map((ID) => ({ ID, modifiedAt: at(ID) })));
    const viaProxy = openOdata(`${proxy.origin}/odata/v4/catalog/`);
    proxy.rewrite = (body) => {
      const next = body['@odata.nextLink'];
      return typeof next === 'string' ? { ...body, '@odata.nextLink': `${proxy.origin}/odata/v4/catalog/${next}` } : body;
    };
    expect(ids((await readRun(viaProxy.source(), mapping, job, fresh())).messages)).toEqual([1, 2, 3, 4]);
    proxy.rewrite = (body) => (body['@odata.nextLink'] ? { ...body, '@odata.nextLink': 'http://198.51.100.7/steal?token' } : body);
    await expect(readRun(viaProxy.source(), mapping, job, fresh())).rejects.toThrow(
      'odata connection "catalog": read changes from Books: refusing a link to another origin (http://198.51.100.7)',
    );
    await viaProxy.close();
  });

  it('waits for Retry-After on 429 and 503 and retries, then gives up as a transient error', async () => {
    await seedBooks(server, [1, 2].map((ID) => ({ ID, modifiedAt: at(ID) })));
    const clock = instantClock();
    const warnings: string[] = [];
    const viaProxy = openOdata(`${proxy.origin}/odata/v4/catalog/`, { clock, warnings, settings: { maxRetries: 2 } });
    let refusals = 2;
    proxy.intercept = (req) =>
      req.url.includes('$orderby=modifiedAt%20asc') && refusals-- > 0
        ? { status: refusals === 1 ? 429 : 503, headers: { 'retry-after': '7' }, body: '{"error":{"code":"429","message":"Rate limit is exceeded."}}' }
        : undefined;
    expect(ids((await readRun(viaProxy.source(), mapping, job, fresh())).messages)).toEqual([1, 2]);
    expect(clock.sleeps).toEqual([7000, 7000]);
    expect(warnings).toEqual([
      'odata connection "catalog": read changes from Books: throttled; retrying in 7 s (1/2)',
      'odata connection "catalog": read changes from Books: throttled; retrying in 7 s (2/2)',
    ]);

    proxy.intercept = (req) => (req.method === 'GET' ? { status: 429, headers: { 'retry-after': '3' }, body: '{"error":{"code":"429","message":"Too many requests"}}' } : undefined);
    const failure = readRun(viaProxy.source(), mapping, job, fresh());
    await expect(failure).rejects.toMatchObject({
      name: 'TransientError',
      retryAfterMs: 3000,
      message: 'odata connection "catalog": read the maximum of modifiedAt in Books: throttled by the service (retry after Retry-After) (GET 429): Too many requests',
    });
    expect(clock.sleeps).toEqual([7000, 7000, 3000, 3000]);
    await viaProxy.close();
  });

  it('reports an unknown entity set as a configuration error', async () => {
    await expect(readRun(odata.source(), { ...mapping, source: { entity: 'Nope', key: ['ID'] } }, job, fresh())).rejects.toMatchObject({
      name: 'ConfigError',
      message: 'odata connection "catalog": read the maximum of modifiedAt in Nope: the entity set or path does not exist (GET 404): Invalid resource path "CatalogService.Nope"',
    });
  });

  it('continues a run from a page cursor (durable path)', async () => {
    await seedBooks(server, [1, 2, 3, 4, 5].map((ID) => ({ ID, modifiedAt: at(ID) })));
    const source = odata.source();
    const iterator = source.retrieveChanges(mapping, job, fresh())[Symbol.asyncIterator]();
    const first = (await iterator.next()).value;
    await iterator.return?.();
    const rest = [];
    for await (const page of source.retrieveChanges(mapping, job, fresh(), { cursor: first.cursor })) rest.push(page);
    expect(ids(first.messages)).toEqual([1, 2, 3]);
    expect(rest.map((p) => [ids(p.messages), p.hasMore])).toEqual([[[4, 5], false]]);
    const after = [];
    for await (const page of source.retrieveChanges(mapping, job, fresh(), { cursor: rest[0].cursor })) after.push(page);
    expect(after).toEqual([]);
  });
});
