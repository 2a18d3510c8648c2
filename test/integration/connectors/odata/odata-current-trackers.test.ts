import { WatermarkValue } from '../../../../src/model/watermark-value';
import type { Job } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { COMPLETION_READ_SIZE } from '../../../../connectors/odata/row-completion';
import { type CapServer, startCapServer } from './cap-server';
import { type InterposedProxy, startInterposedProxy } from './interposed-proxy';
import { at, booksJob as job, booksMapping as mapping, openOdata, readRun, seedBooks } from './odata-test-kit';

const canonical = (second: number) => `${at(second).slice(0, 19)}.0000000Z`;

describe('OdataSource: current change trackers by key against SAP CAP', () => {
  let server: CapServer;
  let proxy: InterposedProxy;
  let odata: ReturnType<typeof openOdata>;
  beforeAll(async () => {
    server = await startCapServer();
    proxy = await startInterposedProxy(new URL(server.url).origin);
    odata = openOdata(`${proxy.origin}/odata/v4/catalog/`);
  });
  afterAll(async () => {
    await odata?.close();
    await proxy?.stop();
    await server?.stop();
  });

  /** The source keys as detection builds them (a real run). */
  async function detectedKeys(): Promise<string[]> {
    return (await readRun(odata.source(), mapping, { ...job, pageSize: 50 }, WatermarkValue.initialize('datetime', null))).messages.map((m) => m.sourceKey);
  }

  it('reads a changed record\'s newer tracker, leaves a deleted one out, across server pages and several requests', async () => {
    const count = COMPLETION_READ_SIZE + 5;
    await seedBooks(server, Array.from({ length: count }, (_, i) => ({ ID: i + 1, modifiedAt: at(i + 1) })));
    const keys = await detectedKeys();
    expect(keys).toHaveLength(count);
    await server.sql('UPDATE hw_Books SET title = ?, modifiedAt = ? WHERE ID = 2', ['Jane Eyre', at(59)]);
    await server.sql('DELETE FROM hw_Books WHERE ID = 3');
    const current = (await odata.source().currentTrackers!(mapping, job, [...keys, '404']))!;
    expect(current.size).toBe(count - 1);
    expect(current.get('1')).toBe(canonical(1));
    expect(current.get('2')).toBe(canonical(59));
    expect(current.has('3')).toBe(false);
    expect(current.has('404')).toBe(false);
    // Integer keys bare (Edm.Int32 from $metadata), the watermark and keys selected.
    const reads = proxy.seen.map((r) => decodeURIComponent(r.url)).filter((u) => u.includes(') or ('));
    expect(reads[0]).toMatch(/^\/odata\/v4\/catalog\/Books\?\$filter=\(ID eq 1\) or \(ID eq 2\) or .* or \(ID eq 20\)&\$select=ID,modifiedAt$/);
    // The server pages 3 records at a time: its skip tokens are followed.
    expect(reads.filter((u) => u.includes('$skiptoken=')).length).toBeGreaterThanOrEqual(6);
  });

  it('answers null for a record outside the job filter (its newer change is not sent)', async () => {
    await seedBooks(server, [{ ID: 1, stock: 1, modifiedAt: at(1) }, { ID: 2, stock: 9, modifiedAt: at(2) }]);
    const filtered: Job = { ...job, filter: [{ field: 'stock', op: 'lt', value: 5 }] };
    expect(await odata.source().currentTrackers!(mapping, filtered, ['1', '2'])).toEqual(new Map([['1', canonical(1)], ['2', null]]));
  });

  it('finds 64-bit keys beyond 2^53 exactly', async () => {
    await server.sql('DELETE FROM hw_Values');
    await server.sql('INSERT INTO hw_Values (ID, big, modifiedAt) VALUES (?, 1, ?), (?, 2, ?)', ['9007199254740993', at(5), '9007199254740992', at(6)]);
    const values: Mapping = { name: 'values', source: { entity: 'Values', key: ['ID'] }, target: { entity: 'v', key: ['id'] }, fields: [{ target: 'id', source: 'ID' }] };
    const current = await odata.source().currentTrackers!(values, job, ['9007199254740993']);
    expect(current).toEqual(new Map([['9007199254740993', canonical(5)]]));
  });

  it('does not answer for change tracking (delta links): a change carries the run\'s stamp, not the record\'s', async () => {
    const delta: Job = { ...job, watermark: { type: 'string', field: '@odata.deltaLink' } };
    await expect(odata.source().currentTrackers!(mapping, delta, ['1'])).resolves.toBeUndefined();
  });
});
