import type { SourceConnector, SourcePage } from '../../../../connectors/base/source-connector';
import { messageIdFor } from '../../../../src/bus/message-properties';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { FakeClock } from '../../../support/fake-clock';
import { Client } from 'pg';
import { describeEngine, ENGINE_NAMES, openEngine, PG_URL, type SqlTestEngine } from './sql-test-engines';

const job: Job = {
  name: 'outbox-customers', order: 1, schedule: '0 * * * * *', enabled: true, source: 's', target: 't', mapping: 'customers',
  priority: 'normal', watermark: { type: 'number', field: 'id' }, filter: [], action: JobActionType.NewUpdate,
  skipOutdatedMessages: true, skipUnchanged: false, pageSize: 3, lookbackSeconds: 0,
};
const mapping: Mapping = {
  name: 'customers',
  source: { entity: 'customer', key: ['id'] },
  target: { entity: 'customers', key: ['id'] },
  fields: [
    { target: 'id', source: 'id' },
    { target: 'name', source: 'name', operations: [{ op: 'upper' }] },
    { target: 'version', source: '$outbox.id' },
  ],
};
const LEASE_SECONDS = 60;
const watermark = () => WatermarkValue.initialize('number', null);

/** Reads one run to its end; `ack`: acknowledge each page as detection does after sending it. */
async function run(source: SourceConnector, ack = true, j: Job = job, m: Mapping = mapping): Promise<SourcePage[]> {
  const pages: SourcePage[] = [];
  for await (const page of source.retrieveChanges(m, j, watermark())) {
    pages.push(page);
    if (ack) await source.acknowledge?.(page);
  }
  return pages;
}
const trackers = (pages: SourcePage[]) => pages.flatMap((p) => p.messages.map((m) => m.changeTracker));

for (const name of ENGINE_NAMES) {
  describeEngine(name)(`OutboxSource on ${name}`, () => {
    let db: SqlTestEngine;
    let clock: FakeClock;
    let table: string;
    let n = 0;
    const ddl = (t: string) =>
      name === 'sqlite'
        ? `CREATE TABLE ${t} (id INTEGER PRIMARY KEY AUTOINCREMENT, aggregate_type TEXT, aggregate_key TEXT NOT NULL, action TEXT NOT NULL, payload TEXT, created_at TEXT, claimed_at TEXT, processed_at TEXT, dead_reason TEXT)`
        : name === 'mysql'
          ? `CREATE TABLE ${t} (id BIGINT AUTO_INCREMENT PRIMARY KEY, aggregate_type VARCHAR(191), aggregate_key VARCHAR(191) NOT NULL, action VARCHAR(32) NOT NULL, payload JSON, created_at DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6), claimed_at DATETIME(6), processed_at DATETIME(6), dead_reason TEXT)`
          : `CREATE TABLE ${t} (id bigserial PRIMARY KEY, aggregate_type text, aggregate_key text NOT NULL, action text NOT NULL, payload jsonb, created_at timestamptz DEFAULT now(), claimed_at timestamptz, processed_at timestamptz, dead_reason text)`;
    const outbox = (settings: Record<string, unknown> = {}) => db.source(db.connection({ outbox: { table, leaseSeconds: LEASE_SECONDS, ...settings } }), clock);
    const write = (rows: Array<{ key: string | number; action?: string; payload?: unknown; type?: string }>) =>
      db.insert(table, rows.map((r) => ({
        aggregate_key: String(r.key), action: r.action ?? 'upsert', aggregate_type: r.type ?? null,
        payload: r.payload === undefined ? JSON.stringify({ id: Number(r.key), name: `n${r.key}` }) : typeof r.payload === 'string' || r.payload === null ? r.payload : JSON.stringify(r.payload),
      })));
    const column = async (col: string) => (await db.select(`SELECT id, ${col} AS v FROM ${table} ORDER BY id`)).map((r) => [Number(r.id), r.v === null ? null : String(r.v)]);

    beforeAll(async () => {
      db = await openEngine(name);
    });
    afterAll(() => db?.close());
    beforeEach(async () => {
      clock = new FakeClock('2026-03-01T12:00:00Z');
      table = `outbox_${++n}`;
      await db.exec(ddl(table));
    });

    it('reads every row in id order, upserts and deletes, the id as change tracker, and marks them only when acknowledged', async () => {
      await write([
        { key: 1 }, { key: 2 }, { key: 1, payload: { id: 1, name: 'renamed' } }, { key: 2, action: 'DELETE', payload: { id: 2 } },
        { key: 3, action: 'insert', payload: { name: 'no key in payload' } }, { key: 4, action: 'delete', payload: null },
      ]);
      const source = outbox();
      const pages = await run(source, false);
      expect(pages.map((p) => [p.rowCount, p.hasMore])).toEqual([[3, true], [3, true]]);
      const messages = pages.flatMap((p) => p.messages);
      expect(messages.map((m) => [m.action, m.sourceKey, m.changeTracker, m.fields])).toEqual([
        ['NewUpdate', '1', '1', { id: 1, name: 'N1', version: 1 }],
        ['NewUpdate', '2', '2', { id: 2, name: 'N2', version: 2 }],
        ['NewUpdate', '1', '3', { id: 1, name: 'RENAMED', version: 3 }],
        ['Delete', '2', '4', { id: 2, name: null, version: 4 }],
        // A key field the payload lacks is the aggregate key as read (text here: see docs/connectors.md).
        ['NewUpdate', '3', '5', { id: '3', name: 'NO KEY IN PAYLOAD', version: 5 }],
        ['Delete', '4', '6', { id: '4', name: null, version: 6 }],
      ]);
      expect(pages.map((p) => p.lastChangeTracker)).toEqual(['3', '6']);
      expect((await column('processed_at')).every(([, v]) => v === null)).toBe(true);
      expect((await column('claimed_at')).every(([, v]) => v !== null)).toBe(true);

      for (const page of pages) await source.acknowledge!(page);
      expect((await column('processed_at')).every(([, v]) => v !== null)).toBe(true);
      await clock.advance(LEASE_SECONDS * 2000);
      expect(await run(source)).toEqual([]);
    });

    it('keeps numbers a double cannot hold exact, as strings of their digits, from a text, json/jsonb or JSON payload', async () => {
      await write([{ key: 9, payload: '{"id": 9, "name": 12345678901234567890.123456789}' }]);
      const [page] = await run(outbox());
      expect(page.messages.map((m) => m.fields)).toEqual([{ id: 9, name: '12345678901234567890.123456789', version: 1 }]);
    });

    it('gives an unacknowledged row back only after its lease, with the same message id', async () => {
      await write([{ key: 7 }, { key: 8 }]);
      const first = outbox();
      const [page] = await run(first, false);
      const ids = page.messages.map((m) => messageIdFor(m));
      // The reader died between send and mark: another reader sees nothing while the lease holds…
      const second = outbox();
      await clock.advance(LEASE_SECONDS * 1000 - 1);
      expect(await run(second)).toEqual([]);
      // …and everything after it, under the same message ids (the broker drops the copies).
      await clock.advance(2);
      const again = await run(second);
      expect(again.flatMap((p) => p.messages.map((m) => messageIdFor(m)))).toEqual(ids);
      // The late mark of the first reader is harmless: the rows are processed once.
      await first.acknowledge!(page);
      expect((await column('processed_at')).map(([, v]) => v !== null)).toEqual([true, true]);
    });

    it('sets a dead row aside with its reason and reads the rest', async () => {
      const rows = [
        { key: 1 },
        { key: 2, action: 'merge' },
        { key: 3, payload: '[3]' },
        { key: 4, payload: { id: 5, name: 'other record' } },
        { key: 5, payload: { id: 5 } },
        { key: 6, payload: null },
        { key: 7 },
      ];
      if (name === 'sqlite') rows.push({ key: 8, payload: '{"id": 8, name' });
      await write(rows);
      const source = outbox();
      const pages = await run(source);
      expect(pages.flatMap((p) => p.messages.map((m) => m.sourceKey))).toEqual(['1', '7']);
      const reasons: Array<[number, string | null]> = [
        [1, null],
        [2, 'action "merge" is not an action of the outbox (known: insert, update, upsert, delete)'],
        [3, 'payload is not a JSON object (got an array)'],
        [4, 'payload field "id" is "5", but aggregate_key is "4"'],
        [5, 'payload has no field "name" (mapped to "name")'],
        [6, 'payload is null, but an upsert needs the record\'s fields'],
        [7, null],
      ];
      if (name === 'sqlite') reasons.push([8, 'payload is not JSON: Expected double-quoted property name in JSON at position 10']);
      expect(await column('dead_reason')).toEqual(reasons);
      const skipped = pages.flatMap((p) => p.skipped ?? []);
      expect(skipped.map((s) => s.error)).toEqual(reasons.filter(([, r]) => r !== null).map(([id, r]) => `outbox row ${id} set aside (dead_reason): ${r}`));
      expect(skipped[0]).toMatchObject({ sourceKey: '2', changeTracker: '2' });
      // Set aside: never claimed again, counted for operators; clearing the reason sends it again.
      await clock.advance(LEASE_SECONDS * 2000);
      expect(await run(source)).toEqual([]);
      expect(await db.select(`SELECT count(*) AS n FROM ${table} WHERE dead_reason IS NOT NULL`)).toEqual([{ n: name === 'sqlite' ? reasons.length - 2 : String(reasons.length - 2) }]);
      await db.exec(`UPDATE ${table} SET dead_reason = NULL, action = 'update' WHERE id = 2`);
      expect(trackers(await run(source))).toEqual(['2']);
    });

    it('sets the row of a message the queue refused aside with why, and marks the others', async () => {
      await write([{ key: 1 }, { key: 2 }, { key: 3 }]);
      const source = outbox();
      const [page] = await run(source, false);
      await source.acknowledge!(page, [{ message: page.messages[1], error: 'message too large for queue sbqnormal' }]);
      expect(await column('dead_reason')).toEqual([[1, null], [2, 'the queue refused its message: message too large for queue sbqnormal'], [3, null]]);
      expect((await column('processed_at')).map(([, v]) => v !== null)).toEqual([true, false, true]);
    });

    it('shares the rows between two readers at once: each row to one of them, none left', async () => {
      const total = 60;
      await write(Array.from({ length: total }, (_, i) => ({ key: i + 1 })));
      const a = outbox();
      const b = outbox();
      const small = { ...job, pageSize: 2 };
      const [x, y] = await Promise.all([run(a, true, small), run(b, true, small)]);
      const got = [...trackers(x), ...trackers(y)].map(Number).sort((p, q) => p - q);
      expect(got).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      expect(trackers(x).length).toBeGreaterThan(0);
      expect(trackers(y).length).toBeGreaterThan(0);
    });

    it('reads only the mapping\'s aggregate type when the table has a type column', async () => {
      await write([{ key: 1, type: 'customer' }, { key: 2, type: 'order' }, { key: 3, type: 'customer' }]);
      const source = outbox({ columns: { type: 'aggregate_type' } });
      expect(trackers(await run(source))).toEqual(['1', '3']);
      expect((await column('claimed_at')).map(([, v]) => v !== null)).toEqual([true, false, true]);
    });

    it('a dry run looks without claiming, and sets nothing aside', async () => {
      await write([{ key: 1 }, { key: 2 }, { key: 3, action: 'merge' }, { key: 4 }, { key: 5 }]);
      const source = outbox();
      const pages: SourcePage[] = [];
      for await (const page of source.retrieveChanges(mapping, job, watermark(), { preview: true })) pages.push(page);
      expect(trackers(pages)).toEqual(['1', '2', '4', '5']);
      expect(pages.flatMap((p) => p.skipped ?? []).map((s) => s.error)).toEqual([
        'outbox row 3 would be set aside (dead_reason): action "merge" is not an action of the outbox (known: insert, update, upsert, delete)',
      ]);
      expect((await column('claimed_at')).every(([, v]) => v === null)).toBe(true);
      expect((await column('dead_reason')).every(([, v]) => v === null)).toBe(true);
      expect(trackers(await run(source))).toEqual(['1', '2', '4', '5']);
    });

    it('deletes processed rows older than retentionDays, never others', async () => {
      await write(Array.from({ length: 5 }, (_, i) => ({ key: i + 1 })));
      const old = db.timestamp('2026-02-01T00:00:00.000Z');
      const recent = db.timestamp('2026-02-28T00:00:00.000Z');
      await db.exec(`UPDATE ${table} SET processed_at = '${old}' WHERE id IN (1, 2)`);
      await db.exec(`UPDATE ${table} SET processed_at = '${recent}' WHERE id = 3`);
      await db.exec(`UPDATE ${table} SET dead_reason = 'bad' WHERE id = 4`);
      const kept = outbox();
      await run(kept, false);
      expect((await column('id')).map(([id]) => id)).toEqual([1, 2, 3, 4, 5]);
      const retaining = outbox({ retentionDays: 7 });
      expect(trackers(await run(retaining))).toEqual([]);
      expect((await column('id')).map(([id]) => id)).toEqual([3, 4, 5]);
    });

    if (name === 'postgres') {
      /** A session of the application, in the test's schema. */
      const session = async () => {
        const client = new Client({ connectionString: PG_URL });
        await client.connect();
        await client.query(`SET search_path TO ${String(db.connection().settings.schema)}`);
        return client;
      };
      const insertRow = (client: Client, key: number) =>
        client.query(`INSERT INTO ${table} (aggregate_key, action, payload) VALUES ($1, 'upsert', $2) RETURNING id`, [String(key), JSON.stringify({ id: key, name: `n${key}` })]);

      it('reads a row whose transaction commits after a later id when it commits: no gap', async () => {
        const [early, late] = [await session(), await session()];
        try {
          await early.query('BEGIN');
          const first = (await insertRow(early, 1)).rows[0].id as string;
          await late.query('BEGIN');
          const second = (await insertRow(late, 2)).rows[0].id as string;
          expect(BigInt(first) < BigInt(second)).toBe(true);
          await late.query('COMMIT');
          const source = outbox();
          expect(trackers(await run(source))).toEqual([second]);
          await early.query('COMMIT');
          // A high-water mark would now stand at the later id and pass the earlier one forever.
          expect(trackers(await run(source))).toEqual([first]);
        } finally {
          await early.end();
          await late.end();
        }
      });

      it('passes over a row another reader holds locked instead of waiting for it', async () => {
        await write([{ key: 1 }, { key: 2 }]);
        const holder = await session();
        try {
          await holder.query('BEGIN');
          await holder.query(`SELECT id FROM ${table} WHERE aggregate_key = '1' FOR UPDATE`);
          expect(trackers(await run(outbox()))).toEqual(['2']);
          await holder.query('ROLLBACK');
          expect(trackers(await run(outbox()))).toEqual(['1']);
        } finally {
          await holder.end();
        }
      });
    }

    it('refuses job settings it cannot honour, naming them', async () => {
      const source = outbox();
      await expect(run(source, true, { ...job, watermark: { type: 'datetime', field: 'created_at' } })).rejects.toThrow(
        `job "outbox-customers": watermark.type must be number when reading the outbox of connection "${db.connection().name}" (the outbox id is the change tracker), got "datetime"`,
      );
      await expect(run(source, true, { ...job, filter: [{ field: 'name', op: 'eq', value: 'x' }] })).rejects.toThrow(
        `job "outbox-customers": filter is not supported when reading the outbox of connection "${db.connection().name}" (the application decides what it writes to the outbox)`,
      );
      expect(() => db.source(db.connection({ outbox: { table, columns: { payload: 'pay load' } } }))).toThrow(
        `connection "${db.connection().name}": settings.outbox.columns.payload: must be a plain SQL identifier (letters, digits, _ and $, not starting with a digit)`,
      );
    });
  });
}
