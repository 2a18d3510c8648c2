import { JobActionType } from '../../../../src/model/job';
import { batchTarget, booksTarget, group, msg, ordersTarget, recordingFetch, shown } from './batch-test-kit';
import { type CapServer, startCapServer } from './cap-server';
import { at, seedBooks } from './odata-test-kit';

/** OdataTarget.applyBatch against SAP CAP 9, which answers both JSON and multipart `$batch`. */
describe.each(['json', 'multipart'] as const)('OdataTarget.applyBatch with a %s $batch (SAP CAP)', (batchFormat) => {
  let server: CapServer;
  let http: ReturnType<typeof recordingFetch>;
  const books = async () => server.sql('SELECT ID, title, stock FROM hw_Books ORDER BY ID');
  beforeAll(async () => {
    server = await startCapServer();
  });
  beforeEach(async () => {
    await seedBooks(server, [{ ID: 1, title: 'Emma', stock: 3, modifiedAt: at(10) }, { ID: 2, title: 'Persuasion', stock: 1, modifiedAt: at(10) }]);
    await server.sql('DELETE FROM hw_Orders');
    http = recordingFetch();
  });
  afterAll(async () => server?.stop());

  it('applies a group in one read and one write request, one outcome per item in order; a bad record fails alone', async () => {
    const target = batchTarget(server.url, http, { batchFormat });
    const outcomes = await target.applyBatch(group(booksTarget, [
      msg({ ID: 1 }, { title: 'Emma (2nd ed.)', stock: 5 }),
      msg({ ID: 3 }, { title: 'Sanditon', stock: 'many' }),
      msg({ ID: 4 }, { title: 'Lady Susan', stock: 2 }),
    ]));
    expect(shown(outcomes)).toEqual([{ status: 'applied' }, { status: 'failed', error: 'PermanentError 400' }, { status: 'applied' }]);
    expect(await books()).toEqual([
      { ID: 1, title: 'Emma (2nd ed.)', stock: 5 }, { ID: 2, title: 'Persuasion', stock: 1 }, { ID: 4, title: 'Lady Susan', stock: 2 },
    ]);
    expect(http.sent.map((r) => `${r.method} ${r.url.replace(server.url, '')}`)).toEqual(['POST $batch', 'POST $batch']);
    // The update carries the ETag it read; the create is a POST, which cannot overwrite.
    expect(http.sent[1].body).toMatch(/if-match\W+W\/\\?"2026-01-01T00:00:10\.000Z/i);
  });

  it('rejects the whole group on a 429 for the batch, keeping Retry-After', async () => {
    const target = batchTarget(server.url, http, { batchFormat });
    http.intercept = () => new Response('{"error":{"code":"429","message":"Too many requests"}}', { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '7' } });
    await expect(target.applyBatch(group(booksTarget, [msg({ ID: 1 }, { stock: 9 }), msg({ ID: 2 }, { stock: 9 })]))).rejects.toMatchObject({ name: 'TransientError', retryAfterMs: 7000 });
    expect(await books()).toEqual([{ ID: 1, title: 'Emma', stock: 3 }, { ID: 2, title: 'Persuasion', stock: 1 }]);
  });

  it('checks the version inside the write: refuses an older change, applies a newer one', async () => {
    const target = batchTarget(server.url, http, { batchFormat });
    const outcomes = await target.applyBatch(group(booksTarget, [
      msg({ ID: 1 }, { title: 'older' }, at(5)),
      msg({ ID: 2 }, { title: 'newer' }, at(20)),
      msg({ ID: 5 }, { title: 'new record' }, at(1)),
    ], { versionCheck: 'datetime' }));
    expect(outcomes).toEqual([{ status: 'outdated', targetVersion: at(10) }, { status: 'applied' }, { status: 'applied' }]);
    expect((await books()).map((b) => b.title)).toEqual(['Emma', 'newer', 'new record']);
  });

  it('re-reads a record written between its read and its write (412) and decides again', async () => {
    const target = batchTarget(server.url, http, { batchFormat });
    // A concurrent writer changes both books right after the read round was answered.
    http.after = async (_request, index) => {
      if (index === 0) await server.sql('UPDATE hw_Books SET title = ?, modifiedAt = ?', ['concurrent', at(30)]);
    };
    const outcomes = await target.applyBatch(group(booksTarget, [msg({ ID: 1 }, { title: 'mine' }, at(20)), msg({ ID: 2 }, { title: 'mine' }, at(40))], { versionCheck: 'datetime' }));
    expect(outcomes).toEqual([{ status: 'outdated', targetVersion: at(30) }, { status: 'applied' }]);
    expect((await books()).map((b) => b.title)).toEqual(['concurrent', 'mine']);
    expect(http.sent).toHaveLength(4); // read, write (412 and 412), read again, write
  });

  // CAP answers such a write 412 (Business Central and Dataverse answer 404: bc-apply-batch and
  // dataverse-apply-batch tests); either way the record is read again and created.
  it('creates again a record deleted between its read and its conditional write: an upsert, never parked', async () => {
    const target = batchTarget(server.url, http, { batchFormat });
    http.after = async (_request, index) => {
      if (index === 0) await server.sql('DELETE FROM hw_Books WHERE ID = 1');
    };
    const outcomes = await target.applyBatch(group(booksTarget, [msg({ ID: 1 }, { title: 'Emma (restored)', stock: 4 }), msg({ ID: 2 }, { title: 'Persuasion', stock: 2 })]));
    expect(outcomes).toEqual([{ status: 'applied' }, { status: 'applied' }]);
    expect(await books()).toEqual([{ ID: 1, title: 'Emma (restored)', stock: 4 }, { ID: 2, title: 'Persuasion', stock: 2 }]);
    expect(http.sent).toHaveLength(4); // read, write (refused for the deleted one), read again, create
    expect(http.sent[3].body).toMatch(/"method":"POST","url":"Books"|POST Books HTTP/);
  });

  it('returns the response fields of every written record, created or updated', async () => {
    const target = batchTarget(server.url, http, { batchFormat });
    await server.sql("INSERT INTO hw_Orders (ID, number, quantity, modifiedAt) VALUES ('11111111-1111-1111-1111-111111111111', 'SO-1', 1, ?)", [at(1)]);
    const outcomes = await target.applyBatch(group(ordersTarget, [msg({ number: 'SO-1' }, { quantity: 4 }), msg({ number: 'SO-2' }, { quantity: 2 })], {
      responseMapping: [{ from: 'ID', to: 'orderId' }],
    }));
    const rows = await server.sql('SELECT ID, number, quantity FROM hw_Orders ORDER BY number');
    expect(rows).toEqual([
      { ID: '11111111-1111-1111-1111-111111111111', number: 'SO-1', quantity: 4 },
      { ID: expect.stringMatching(/^[0-9a-f-]{36}$/), number: 'SO-2', quantity: 2 },
    ]);
    expect(outcomes).toEqual([{ status: 'applied', returned: { ID: rows[0].ID } }, { status: 'applied', returned: { ID: rows[1].ID } }]);
    expect(http.sent).toHaveLength(2);
  });

  it('deletes records; a missing one is a success', async () => {
    const target = batchTarget(server.url, http, { batchFormat });
    const outcomes = await target.applyBatch(group(booksTarget, [msg({ ID: 1 }), msg({ ID: 77 }), msg({ ID: 2 })], { action: JobActionType.Delete }));
    expect(outcomes).toEqual([{ status: 'applied' }, { status: 'applied' }, { status: 'applied' }]);
    expect(await books()).toEqual([]);
    expect(http.sent).toHaveLength(2);
  });
});

describe('OdataTarget.applyBatch without $batch (batchFormat off)', () => {
  let server: CapServer;
  beforeAll(async () => {
    server = await startCapServer();
    await seedBooks(server, [{ ID: 1, title: 'Emma', stock: 3, modifiedAt: at(10) }]);
  });
  afterAll(async () => server?.stop());

  it('sends single requests, at most maxConcurrency at once, one outcome per item', async () => {
    const http = recordingFetch();
    const target = batchTarget(server.url, http, {}, 3);
    const messages = Array.from({ length: 12 }, (_, i) => msg({ ID: 100 + i }, { title: `B${i}`, stock: i === 4 ? 'bad' : i }));
    const outcomes = await target.applyBatch(group(booksTarget, messages));
    expect(shown(outcomes).filter((o) => JSON.stringify(o) !== '{"status":"applied"}')).toEqual([{ status: 'failed', error: 'PermanentError 400' }]);
    expect(shown(outcomes)[4]).toEqual({ status: 'failed', error: 'PermanentError 400' });
    expect(http.sent.some((r) => r.url.endsWith('$batch'))).toBe(false);
    expect(http.sent).toHaveLength(24);
    expect(http.maxInFlight).toBe(3);
  });
});
