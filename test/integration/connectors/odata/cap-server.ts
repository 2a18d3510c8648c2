import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Server } from 'node:http';

/** The slice of `@sap/cds` 9 these tests use (the package ships no TypeScript types). */
interface Cds {
  root: string;
  env: { requires: Record<string, unknown>; query: { limit: Record<string, unknown> }; features: Record<string, unknown> };
  log(id: string, level: string): unknown;
  load(files: string[]): Promise<unknown>;
  compile: { for: { nodejs(csn: unknown): unknown } };
  model: unknown;
  connect: { to(name: string): Promise<CdsService> };
  deploy(model: unknown): { to(db: CdsService): Promise<unknown> };
  serve(name: string): { from(model: unknown): { in(app: unknown): Promise<Record<string, CdsService>> } };
}

interface CdsRequest {
  data: Record<string, unknown>;
  params: Array<Record<string, unknown> | number>;
}

interface CdsService {
  run(sql: string, params?: unknown[]): Promise<unknown>;
  on(event: string, entity: string, handler: (req: CdsRequest) => Promise<unknown>): void;
  on(event: string, handler: (req: CdsRequest) => Promise<unknown>): void;
}

interface ExpressApp {
  listen(port: number, host: string): Server;
}

export interface CapServer {
  /** Service root, ending with `/`, e.g. `http://127.0.0.1:PORT/odata/v4/catalog/`. */
  url: string;
  /** Runs SQL on the server's in-memory SQLite database (tables `hw_Books`, `hw_Orders`, `hw_Values`). */
  sql(statement: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  stop(): Promise<void>;
}

const load = createRequire(__filename);

/**
 * SAP CAP (`@sap/cds` 9) serving `fixtures/` as OData V4 over in-memory SQLite, in this process
 * on a free port; seed data from `fixtures/db/data/*.csv`. Start it once per suite. Skip tokens
 * are key-based (`query.limit.reliablePaging`), as Dataverse's and Business Central's are;
 * `features.ieee754compatible` on (Edm.Int64 read and written as strings, stored exactly).
 */
export async function startCapServer(): Promise<CapServer> {
  const cds = load('@sap/cds') as Cds;
  const express = load('express') as () => ExpressApp;
  const fixtures = path.join(__dirname, 'fixtures');
  for (const id of ['cds', 'odata', 'deploy', 'serve', 'app', 'sqlite', 'db', 'error']) cds.log(id, 'silent');
  cds.root = fixtures;
  cds.env.requires.db = { kind: 'sqlite', impl: '@cap-js/sqlite', credentials: { url: ':memory:' } };
  cds.env.query.limit.reliablePaging = true;
  // Int64 and Decimal as JSON strings both ways (the default from CAP 10): Int64 then keeps every digit.
  cds.env.features.ieee754compatible = true;
  const csn = await cds.load([path.join(fixtures, 'db'), path.join(fixtures, 'srv')]);
  cds.model = cds.compile.for.nodejs(csn);
  const db = await cds.connect.to('db');
  await cds.deploy(cds.model).to(db);
  const app = express();
  const services = await cds.serve('CatalogService').from(cds.model).in(app);
  const catalog = services.CatalogService;
  catalog.on('restock', 'Books', async (req) => {
    const key = req.params[0];
    const id = typeof key === 'object' ? key.ID : key;
    await db.run('UPDATE hw_Books SET stock = stock + ?, modifiedAt = ? WHERE ID = ?', [req.data.amount, new Date().toISOString(), id]);
    return ((await db.run('SELECT * FROM hw_Books WHERE ID = ?', [id])) as unknown[])[0];
  });
  catalog.on('resetStock', async (req) => {
    await db.run('UPDATE hw_Books SET stock = ?', [req.data.amount]);
    return ((await db.run('SELECT count(*) AS n FROM hw_Books')) as Array<{ n: number }>)[0].n;
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/odata/v4/catalog/`,
    sql: async (statement, params) => {
      const result = await db.run(statement, params);
      return Array.isArray(result) ? (result as Array<Record<string, unknown>>) : [];
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
