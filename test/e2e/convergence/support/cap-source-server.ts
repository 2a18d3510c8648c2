import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import path from 'node:path';

/** The slice of `@sap/cds` 9 the harness uses (the package ships no TypeScript types). */
interface Cds {
  root: string;
  env: { requires: Record<string, unknown>; query: { limit: Record<string, unknown> } };
  log(id: string, level: string): unknown;
  load(files: string[]): Promise<unknown>;
  compile: { for: { nodejs(csn: unknown): unknown } };
  model: unknown;
  connect: { to(name: string): Promise<CdsDb> };
  deploy(model: unknown): { to(db: CdsDb): Promise<unknown> };
  serve(name: string): { from(model: unknown): { in(app: unknown): Promise<unknown> } };
}

/** The database service: statements, and transactions that commit when `fn` resolves. */
export interface CdsDb {
  run(sql: string, params?: unknown[]): Promise<unknown>;
  tx<T>(fn: (tx: CdsDb) => Promise<T>): Promise<T>;
}

interface ExpressApp {
  listen(port: number, host: string): Server;
}

const load = createRequire(__filename);

/** Tables of `odata-model.cds` in the server's in-memory SQLite. */
export const CAP_TABLES = { categories: 'hwc_categories', items: 'hwc_items', deletedItems: 'hwc_deleted_items' } as const;

let served: Promise<{ app: ExpressApp; db: CdsDb }> | undefined;

/**
 * CAP (`@sap/cds` 9) serving `odata-model.cds` as OData V4 over in-memory SQLite, in the test
 * process (so it outlives killed hosts). `cds` is a process-wide singleton: the model is deployed
 * and served once per process; each {@link startCapSource} empties the tables and listens on a
 * new port. Skip tokens are key-based (`query.limit.reliablePaging`), so rows that change between
 * two pages of a run move neither into nor out of the pages still to come.
 */
function serveOnce(): Promise<{ app: ExpressApp; db: CdsDb }> {
  served ??= (async () => {
    const cds = load('@sap/cds') as Cds;
    const express = load('express') as () => ExpressApp;
    for (const id of ['cds', 'odata', 'deploy', 'serve', 'app', 'sqlite', 'db', 'error']) cds.log(id, 'silent');
    cds.root = __dirname;
    cds.env.requires.db = { kind: 'sqlite', impl: '@cap-js/sqlite', credentials: { url: ':memory:' } };
    cds.env.query.limit.reliablePaging = true;
    cds.model = cds.compile.for.nodejs(await cds.load([path.join(__dirname, 'odata-model.cds')]));
    const db = await cds.connect.to('db');
    await cds.deploy(cds.model).to(db);
    const app = express();
    await cds.serve('ConvergenceService').from(cds.model).in(app);
    return { app, db };
  })();
  return served;
}

export interface CapSource {
  /** Service root, ending with `/`. */
  url: string;
  db: CdsDb;
  stop(): Promise<void>;
}

/** Empties the harness's tables and serves them on a free port of 127.0.0.1. */
export async function startCapSource(): Promise<CapSource> {
  const { app, db } = await serveOnce();
  for (const table of Object.values(CAP_TABLES)) await db.run(`DELETE FROM ${table}`);
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/odata/v4/convergence/`,
    db,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
