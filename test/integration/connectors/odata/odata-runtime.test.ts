import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import type { ReceivedMessage } from '../../../../src/bus/message-bus';
import { readSettings } from '../../../../src/platform/settings';
import { busSettler } from '../../../../src/process/bus-settler';
import type { ProcessResult } from '../../../../src/process/process-queue-message-service';
import { createRuntime, type Runtime } from '../../../../src/runtime/runtime';
import { silentLogger } from '../../../../src/telemetry/logger';
import { startTestAzurite, type TestAzurite } from '../../../support/azurite';
import { type CapServer, startCapServer } from './cap-server';
import { at, seedBooks } from './odata-test-kit';

const SHOP_SCHEMA = `
  CREATE TABLE books (book_id INTEGER PRIMARY KEY, title TEXT NOT NULL, stock INTEGER, modified_at TEXT);
  CREATE TABLE orders (number TEXT PRIMARY KEY, book_id INTEGER, quantity INTEGER, modified_at TEXT NOT NULL, remote_id TEXT);`;

function config(serviceUrl: string) {
  return {
    connections: [
      { name: 'catalog', type: 'odata', settings: { serviceUrl, entityKeys: { Orders: ['ID'] } } },
      { name: 'shop', type: 'sqlite', settings: { file: './shop.db' } },
    ],
    mappings: [
      {
        name: 'catalog-books-to-shop',
        source: { entity: 'Books', key: ['ID'] },
        target: { entity: 'books', key: ['book_id'] },
        fields: [
          { target: 'book_id', source: 'ID' },
          { target: 'title', source: 'title', operations: [{ op: 'upper' }] },
          { target: 'stock', source: 'stock' },
          { target: 'modified_at', source: 'modifiedAt' },
        ],
      },
      {
        name: 'shop-orders-to-catalog',
        source: { entity: 'orders', key: ['number'] },
        target: { entity: 'Orders', key: ['number'] },
        fields: [
          { target: 'number', source: 'number' },
          { target: 'book_ID', source: 'book_id' },
          { target: 'quantity', source: 'quantity' },
        ],
        responseMapping: [{ from: 'ID', to: 'remote_id' }],
      },
      {
        name: 'catalog-order-ids-to-shop',
        source: { entity: 'Orders', key: ['number'] },
        target: { entity: 'orders', key: ['number'] },
        fields: [{ target: 'number', source: 'number' }, { target: 'remote_id', source: 'ID' }],
      },
    ],
    jobs: [
      {
        name: 'catalog-books', order: 10, schedule: '0 */5 * * * *', source: 'catalog', target: 'shop', mapping: 'catalog-books-to-shop',
        priority: 'normal', pageSize: 2, watermark: { type: 'datetime', field: 'modifiedAt' },
      },
      {
        name: 'shop-orders', order: 20, schedule: '0 */5 * * * *', source: 'shop', target: 'catalog', mapping: 'shop-orders-to-catalog',
        priority: 'high', watermark: { type: 'datetime', field: 'modified_at' }, responseJob: 'catalog-order-ids',
      },
      {
        name: 'catalog-order-ids', order: 30, schedule: '0 */5 * * * *', enabled: false, source: 'catalog', target: 'shop',
        mapping: 'catalog-order-ids-to-shop', priority: 'high', watermark: { type: 'datetime', field: 'modifiedAt' },
      },
    ],
  };
}

/**
 * A whole cycle through the runtime the local host drives: detection → local bus → processing,
 * with an OData service (SAP CAP) on one side and SQLite on the other, tables on Azurite.
 */
describe('OData ⇄ SQLite through the runtime', () => {
  let server: CapServer;
  let azurite: TestAzurite;
  let dir: string;
  let shop: Database.Database;
  let runtime: Runtime;

  beforeAll(async () => {
    [server, azurite] = await Promise.all([startCapServer(), startTestAzurite()]);
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-odata-e2e-'));
    const files = config(server.url);
    for (const kind of ['connections', 'mappings', 'jobs'] as const) writeFileSync(path.join(dir, `${kind}.yaml`), stringify({ [kind]: files[kind] }));
    shop = new Database(path.join(dir, 'shop.db'));
    shop.exec(SHOP_SCHEMA);
    const settings = { ...readSettings({}), storageConnectionString: azurite.connectionString, dataDir: path.join(dir, 'data') };
    runtime = await createRuntime({ settings, configDir: dir, log: silentLogger });
  });
  afterAll(async () => {
    await runtime?.close();
    shop?.close();
    await Promise.all([server?.stop(), azurite?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function drain(): Promise<ProcessResult[]> {
    const results: ProcessResult[] = [];
    for (;;) {
      let got = 0;
      for (const queue of Object.values(runtime.settings.queues.work)) {
        const messages: ReceivedMessage[] = await runtime.bus.receive(queue, { maxMessages: 50 });
        got += messages.length;
        for (const message of messages) results.push(await runtime.processor.execute(message, busSettler(runtime.bus, message)));
      }
      if (got === 0) return results;
    }
  }

  it('syncs books from OData into SQLite and orders from SQLite into OData, with the generated key written back', async () => {
    await seedBooks(server, [1, 2, 3, 4, 5].map((ID) => ({ ID, title: `Book ${ID}`, stock: ID, modifiedAt: at(ID) })));
    shop.prepare('INSERT INTO orders (number, book_id, quantity, modified_at) VALUES (?, ?, ?, ?)').run('SO-1', 2, 3, '2026-02-01T00:00:00.000Z');

    const runs = await runtime.detection.execute();
    expect(runs.map((r) => [r.jobName, r.outcome, r.detected, r.watermarkAfter])).toEqual([
      ['catalog-books', 'Succeeded', 5, '2026-01-01T00:00:05.0000000Z'],
      ['shop-orders', 'Succeeded', 1, '2026-02-01T00:00:00.0000000Z'],
    ]);
    const results = await drain();
    expect(results.filter((r) => r.outcome !== 'Success')).toEqual([]);
    expect(results.map((r) => r.jobName).sort()).toEqual(['catalog-books', 'catalog-books', 'catalog-books', 'catalog-books', 'catalog-books', 'catalog-order-ids', 'shop-orders']);
    expect(shop.prepare('SELECT book_id, title, stock FROM books ORDER BY book_id').all()).toEqual(
      [1, 2, 3, 4, 5].map((id) => ({ book_id: id, title: `BOOK ${id}`, stock: id })),
    );
    const [order] = await server.sql('SELECT ID, number, book_ID, quantity FROM hw_Orders');
    expect(order).toMatchObject({ number: 'SO-1', book_ID: 2, quantity: 3 });
    expect(shop.prepare('SELECT remote_id FROM orders WHERE number = ?').get('SO-1')).toEqual({ remote_id: order.ID });

    // Incremental: one book changes in the service, the order changes in the shop.
    await server.sql('UPDATE hw_Books SET title = ?, modifiedAt = ? WHERE ID = 4', ['Eleonora', at(30)]);
    shop.prepare('UPDATE orders SET quantity = 8, modified_at = ? WHERE number = ?').run('2026-02-02T00:00:00.000Z', 'SO-1');
    const jobs = runtime.init.config.jobs;
    const again = [];
    for (const name of ['catalog-books', 'shop-orders']) again.push(await runtime.detection.runJob(jobs.find((j) => j.name === name)!));
    expect(again.map((r) => [r.jobName, r.outcome, r.detected])).toEqual([['catalog-books', 'Succeeded', 1], ['shop-orders', 'Succeeded', 1]]);
    expect((await drain()).map((r) => r.outcome)).toEqual(['Success', 'Success', 'Success']);
    expect(shop.prepare('SELECT title FROM books WHERE book_id = 4').get()).toEqual({ title: 'ELEONORA' });
    expect(await server.sql('SELECT ID, quantity FROM hw_Orders')).toEqual([{ ID: order.ID, quantity: 8 }]);
  });
});
