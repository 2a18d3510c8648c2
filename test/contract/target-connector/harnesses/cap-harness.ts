import { randomUUID } from 'node:crypto';
import type { BatchFormat } from '../../../../connectors/odata/batch-transport';
import type { JsonValue } from '../../../../src/model/queue-message';
import { batchTarget, booksTarget, ordersTarget, recordingFetch } from '../../../integration/connectors/odata/batch-test-kit';
import { type CapServer, startCapServer } from '../../../integration/connectors/odata/cap-server';
import { openOdata } from '../../../integration/connectors/odata/odata-test-kit';
import { type ContractItem, type PreparedTarget, type PreparedValueTarget, type Scenario, type TargetHarness, targetKeyFor } from '../context';

/**
 * The contract on SAP CAP 9 (OData V4 over in-memory SQLite, `test/integration/connectors/odata/
 * fixtures`), through `$batch` in `batchFormat`. Books (integer key `ID`, `title`, `stock`, the
 * ETag `modifiedAt`) hold every case but the response fields, which need the generated UUID `ID`
 * of Orders (found by their alternate key `number`). A whole-group failure is a 503 with
 * Retry-After answered in front of the server (CAP sends none of its own).
 */
export async function capHarness(batchFormat: BatchFormat): Promise<TargetHarness> {
  const server = await startCapServer();
  return {
    prepare: (scenario) => prepare(server, batchFormat, scenario),
    prepareValues: () => prepareValues(server, batchFormat),
    close: () => server.stop(),
  };
}

async function prepare(server: CapServer, batchFormat: BatchFormat, scenario: Scenario): Promise<PreparedTarget> {
  await server.sql('DELETE FROM hw_Books');
  await server.sql('DELETE FROM hw_Orders');
  const http = recordingFetch();
  const target = batchTarget(server.url, http, { batchFormat });
  const done = async () => {
    http.intercept = undefined;
  };
  return scenario.uses.includes('generated') ? orders(server, target, scenario, done) : books(server, target, scenario, http, done);
}

async function books(server: CapServer, target: PreparedTarget['target'], scenario: Scenario, http: ReturnType<typeof recordingFetch>, done: () => Promise<void>): Promise<PreparedTarget> {
  for (const r of scenario.seed) {
    await server.sql('INSERT INTO hw_Books (ID, title, stock, modifiedAt) VALUES (?, ?, ?, ?)', [r.key, r.label ?? null, r.qty ?? 0, r.version === undefined ? new Date().toISOString() : r.version]);
  }
  return {
    target,
    mapping: booksTarget,
    targetKeyOf: (item: ContractItem) => targetKeyFor(item, 'ID', (n) => n),
    fieldsOf: (item) => defined({ title: item.label, stock: item.qty }),
    read: async (key) => {
      const [row] = await server.sql('SELECT ID, title, stock FROM hw_Books WHERE ID = ?', [key]);
      return row ? { key: Number(row.ID), label: row.title as string, qty: row.stock as number } : null;
    },
    failGroup: async () => {
      http.intercept = () => new Response('{"error":{"code":"503","message":"Service Unavailable"}}', { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '7' } });
      return { name: 'TransientError', retryAfterMs: 7000 };
    },
    done,
  };
}

async function orders(server: CapServer, target: PreparedTarget['target'], scenario: Scenario, done: () => Promise<void>): Promise<PreparedTarget> {
  for (const r of scenario.seed) {
    await server.sql('INSERT INTO hw_Orders (ID, number, quantity, modifiedAt) VALUES (?, ?, ?, ?)', [randomUUID(), `SO-${r.key}`, r.qty ?? 0, r.version ?? new Date().toISOString()]);
  }
  const row = async (key: number) => (await server.sql('SELECT ID, quantity FROM hw_Orders WHERE number = ?', [`SO-${key}`]))[0];
  return {
    target,
    mapping: ordersTarget,
    targetKeyOf: (item: ContractItem) => targetKeyFor(item, 'number', (n) => `SO-${n}`),
    fieldsOf: (item) => defined({ quantity: item.qty }),
    read: async (key) => {
      const r = await row(key);
      return r ? { key, qty: r.quantity as number } : null;
    },
    generatedField: 'ID',
    generated: async (key) => (await row(key)).ID as JsonValue,
    done,
  };
}

/**
 * The value matrix's entity `Values` (`Edm.Int64` key `ID`, `big` Edm.Int64, `data` Edm.Binary),
 * written through a connection opened as a user's is (typed by `$metadata`, IEEE754Compatible).
 * Edm.Decimal (REAL in SQLite) and Timestamp (milliseconds) cannot hold the matrix and CAP has no
 * JSON type: those kinds are left out. An integer beyond 64 bits fails naming the property.
 */
async function prepareValues(server: CapServer, batchFormat: BatchFormat): Promise<PreparedValueTarget> {
  await server.sql('DELETE FROM hw_Values');
  const odata = openOdata(server.url, { settings: { batchFormat } });
  return {
    target: odata.target(),
    mapping: { name: 'values', source: { entity: 'src', key: ['ID'] }, target: { entity: 'Values', key: ['ID'] }, fields: [] },
    key: 'ID',
    columns: { int64: 'big', bytes: 'data' },
    read: async (key) => {
      // CAST: the driver would read a 64-bit integer as a double; `data` holds CAP's base64 text.
      const [r] = await server.sql('SELECT CAST(big AS TEXT) AS big, data FROM hw_Values WHERE ID = ?', [key]);
      return { int64: r.big, bytes: r.data === null ? null : Buffer.from(String(r.data), 'base64').toString('hex') };
    },
    inexact: [{ column: 'big', value: '9223372036854775808' }],
    columnWord: 'property',
    done: async () => {
      await odata.close();
    },
  };
}

function defined(fields: Record<string, JsonValue | undefined>): Record<string, JsonValue> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Record<string, JsonValue>;
}
