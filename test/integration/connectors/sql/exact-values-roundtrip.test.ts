import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { deserializeQueueMessage, type QueueMessage, serializeQueueMessage } from '../../../../src/model/queue-message';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { describeEngine, type EngineName, ENGINE_NAMES, openEngine, readRun, type SqlTestEngine } from './sql-test-engines';
import { exactJson } from '../../../contract/value-matrix';

/**
 * The value matrix through the real message path: a source reads it, each message is serialized
 * to its JSON body and read back as a consumer would, and a target applies it (a batch, then
 * one by one); the target's stored values are read back with the engine's own exact text forms.
 */
const BIG = ['1234567890123456789', '9007199254740993', '9223372036854775807', '-9223372036854775808'];
const DECIMAL = '12345678901234567890.123456789012';
const BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
const INSTANT = '2026-01-02 03:04:05.123456+02';
const DOC = { a: 1, nested: { b: [1, 'x', null], ok: true }, text: 'ü "q"' };
/** A JSON value shaped like the bytes tag: must arrive as JSON, not as bytes. */
const TAG_LIKE = { $binary: 'AAE=' };

const job: Job = {
  name: 'values', order: 1, schedule: '0 * * * * *', enabled: true, source: 's', target: 't', mapping: 'values',
  priority: 'normal', watermark: { type: 'number', field: 'ver' }, filter: [], action: JobActionType.NewUpdate,
  skipOutdatedMessages: false, skipUnchanged: false, pageSize: 2, lookbackSeconds: 0,
};
const mapping: Mapping = {
  name: 'values',
  source: { entity: 'vals', key: ['id'] },
  target: { entity: 'vals_t', key: ['id'] },
  fields: ['id', 'i8', 'dec', 'bin', 'ts', 'doc'].map((f) => ({ target: f, source: f })),
};

const TABLES: Record<EngineName, string> = {
  sqlite: 'id INTEGER PRIMARY KEY, i8 INTEGER, dec TEXT, bin BLOB, ts TEXT, doc TEXT',
  postgres: 'id int8 PRIMARY KEY, i8 int8, dec numeric, bin bytea, ts timestamptz, doc jsonb',
  // DEC is a reserved word in MySQL: quoted (the engines' sessions use ANSI_QUOTES).
  mysql: 'id bigint PRIMARY KEY, i8 bigint, "dec" decimal(32,12), bin longblob, ts datetime(6), doc json',
};

async function fillSource(db: SqlTestEngine): Promise<void> {
  await db.exec(`CREATE TABLE vals (${TABLES[db.name]}, ver INTEGER)`);
  const doc = (value: unknown) => JSON.stringify(value);
  if (db.name === 'sqlite') {
    const rows = BIG.map((v, i) => `(${v}, ${v}, ${i === 0 ? `'${DECIMAL}', X'${BYTES.toString('hex')}', '${INSTANT}', '${doc(DOC)}'` : `NULL, NULL, NULL, ${i === 1 ? `'${doc(TAG_LIKE)}'` : 'NULL'}`}, ${i + 1})`);
    await db.exec(`INSERT INTO vals (id, i8, dec, bin, ts, doc, ver) VALUES ${rows.join(', ')}`);
    return;
  }
  if (db.name === 'mysql') {
    // A DATETIME holds no offset: the instant goes in as UTC. MySQL reads backslashes in literals as escapes.
    const doc = (value: unknown) => JSON.stringify(value).replace(/\\/g, '\\\\');
    const rows = BIG.map((v, i) => `(${v}, ${v}, ${i === 0 ? `${DECIMAL}, X'${BYTES.toString('hex')}', '2026-01-02 01:04:05.123456', '${doc(DOC)}'` : `NULL, NULL, NULL, ${i === 1 ? `'${doc(TAG_LIKE)}'` : 'NULL'}`}, ${i + 1})`);
    await db.exec(`INSERT INTO vals (id, i8, "dec", bin, ts, doc, ver) VALUES ${rows.join(', ')}`);
    return;
  }
  const rows = BIG.map((v, i) => `(${v}, ${v}, ${i === 0 ? `${DECIMAL}, '\\x${BYTES.toString('hex')}', '${INSTANT}', '${doc(DOC)}'` : `NULL, NULL, NULL, ${i === 1 ? `'${doc(TAG_LIKE)}'` : 'NULL'}`}, ${i + 1})`);
  await db.exec(`INSERT INTO vals (id, i8, dec, bin, ts, doc, ver) VALUES ${rows.join(', ')}`);
}

/** The target's rows in exact text: integers as digits, bytes as hex, instants as UTC with microseconds, JSON parsed. */
async function stored(db: SqlTestEngine): Promise<unknown[]> {
  const rows =
    db.name === 'sqlite'
      ? await db.select(`SELECT CAST(id AS TEXT) AS id, typeof(i8) AS kind, CAST(i8 AS TEXT) AS i8, dec, typeof(bin) AS binkind, hex(bin) AS bin, ts, doc FROM vals_t ORDER BY vals_t.id`)
      : db.name === 'mysql'
        ? await db.select(`SELECT CAST(id AS CHAR) AS id, 'integer' AS kind, CAST(i8 AS CHAR) AS i8, CAST("dec" AS CHAR) AS "dec", CASE WHEN bin IS NULL THEN 'null' ELSE 'blob' END AS binkind, hex(bin) AS bin, ts, doc FROM vals_t ORDER BY vals_t.id`)
        : await db.select(`SELECT id::text AS id, 'integer' AS kind, i8::text AS i8, dec::text AS dec, CASE WHEN bin IS NULL THEN 'null' ELSE 'blob' END AS binkind, encode(bin, 'hex') AS bin, ts::text AS ts, doc::text AS doc FROM vals_t ORDER BY vals_t.id`);
  return rows.map((r) => ({
    id: r.id, kind: r.kind, i8: r.i8, dec: r.dec, binkind: r.binkind,
    bin: r.bin === null || r.bin === '' ? null : String(r.bin).toLowerCase(),
    ts: r.ts === null ? null : instant(r.ts),
    doc: r.doc === null ? null : JSON.parse(String(r.doc)),
  }));
}

/** An instant as UTC text with 6 fraction digits, from SQL text with any offset or from a Date. */
function instant(value: unknown): string {
  if (value instanceof Date) return value.toISOString(); // pg's default parser: milliseconds only
  const match = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(String(value));
  if (!match) return `not an instant: ${String(value)}`;
  const offset = !match[4] || match[4] === 'Z' ? 'Z' : match[4].length === 3 ? `${match[4]}:00` : match[4];
  const seconds = new Date(`${match[1]}T${match[2]}${offset}`).toISOString().slice(0, 19);
  return `${seconds}.${(match[3] ?? '').padEnd(6, '0')}Z`;
}

const expected = [...BIG]
  .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))
  .map((v) => ({
    id: v, kind: 'integer', i8: v,
    dec: v === BIG[0] ? DECIMAL : null,
    binkind: v === BIG[0] ? 'blob' : 'null',
    bin: v === BIG[0] ? BYTES.toString('hex') : null,
    ts: v === BIG[0] ? '2026-01-02T01:04:05.123456Z' : null,
    doc: v === BIG[0] ? DOC : v === BIG[1] ? TAG_LIKE : null,
  }));

/** Through the body: what a consumer gets. */
const overTheWire = (messages: QueueMessage[]) => messages.map((m) => deserializeQueueMessage(Buffer.from(serializeQueueMessage(m), 'utf8')));

for (const from of ENGINE_NAMES) {
  for (const to of ENGINE_NAMES) {
    describeEngine(from)(`exact values ${from} → ${to}`, () => {
      const pgNeeded = (from === 'postgres' || to === 'postgres') && !process.env.HIGHWATER_TEST_PG_URL;
      const mysqlNeeded = (from === 'mysql' || to === 'mysql') && !process.env.HIGHWATER_TEST_MYSQL_URL;
      const missing = pgNeeded || mysqlNeeded;
      let source: SqlTestEngine;
      let target: SqlTestEngine;
      beforeAll(async () => {
        if (missing) return;
        source = await openEngine(from);
        target = await openEngine(to);
        await fillSource(source);
        await target.exec(`CREATE TABLE vals_t (${TABLES[to]})`);
      });
      afterAll(async () => {
        await source?.close();
        await target?.close();
      });

      it('carries 64-bit integers, an exact decimal, bytes 0x00..0xff, an instant with microseconds and JSON unchanged (batch, then one by one)', async () => {
        if (missing) return;
        const { messages } = await readRun(source.source(), mapping, job, WatermarkValue.initialize('number', null));
        expect(messages.map((m) => m.sourceKey).sort()).toEqual([...BIG].sort());
        const received = overTheWire(messages);

        const outcomes = await target.target().applyBatch?.({ job, mapping, action: JobActionType.NewUpdate, messages: received });
        expect(outcomes?.map((o) => o.status)).toEqual(BIG.map(() => 'applied'));
        expect(await stored(target)).toEqual(expected);

        await target.exec('DELETE FROM vals_t');
        const single = target.target();
        for (const m of received) await single.upsert(m, mapping);
        expect(await stored(target)).toEqual(expected);
      });
    });
  }
}

/** A JSON document whose numbers a JS number would round, and an ordinary one. */
const EXACT_DOC = '{"id": 12345678901234567890, "price": 0.1000000000000000055511151231257827, "ok": [1, 2.5]}';
const ORDINARY_DOC = { a: 1, b: [2.5, 'x', null] };
const DOC_TABLES: Record<EngineName, string> = {
  sqlite: 'id INTEGER PRIMARY KEY, doc TEXT',
  postgres: 'id int8 PRIMARY KEY, doc jsonb',
  mysql: 'id bigint PRIMARY KEY, doc json',
};
const docMapping: Mapping = { name: 'docs', source: { entity: 'docs', key: ['id'] }, target: { entity: 'docs_t', key: ['id'] }, fields: ['id', 'doc'].map((f) => ({ target: f, source: f })) };
const docJob: Job = { ...job, name: 'docs', mapping: 'docs' };

/** The target's documents as text (jsonb as PostgreSQL writes it), by id. */
async function storedDocs(db: SqlTestEngine): Promise<Array<{ id: string; doc: string }>> {
  const rows = await db.select(`SELECT CAST(id AS ${db.name === 'mysql' ? 'CHAR' : 'TEXT'}) AS id, ${db.name === 'postgres' ? 'doc::text' : 'doc'} AS doc FROM docs_t ORDER BY id`);
  return rows.map((r) => ({ id: String(r.id), doc: String(r.doc) }));
}

for (const from of ['postgres', 'mysql'] as const) {
  for (const to of ENGINE_NAMES) {
    describeEngine(from)(`a JSON document beyond a double ${from} → ${to}`, () => {
      const missing = (to === 'postgres' && !process.env.HIGHWATER_TEST_PG_URL) || (to === 'mysql' && !process.env.HIGHWATER_TEST_MYSQL_URL);
      let source: SqlTestEngine;
      let target: SqlTestEngine;
      beforeAll(async () => {
        if (missing) return;
        source = await openEngine(from);
        target = await openEngine(to);
        await source.exec(`CREATE TABLE docs (${DOC_TABLES[from]}, ver bigint)`);
        await source.exec(`INSERT INTO docs (id, doc, ver) VALUES (1, '${EXACT_DOC}', 1), (2, '${JSON.stringify(ORDINARY_DOC)}', 2)`);
        await target.exec(`CREATE TABLE docs_t (${DOC_TABLES[to]})`);
      });
      afterAll(async () => {
        await source?.close();
        await target?.close();
      });

      it('travels as its exact text ({"$jsonText"}) and is stored with every digit; an ordinary document stays a JSON value (batch, then one by one)', async () => {
        if (missing) return;
        const { messages } = await readRun(source.source(), docMapping, docJob, WatermarkValue.initialize('number', null));
        const received = overTheWire(messages);
        const [exact, ordinary] = [...received].sort((a, b) => a.sourceKey.localeCompare(b.sourceKey)).map((m) => m.fields.doc);
        expect(Object.keys(exact as object)).toEqual(['$jsonText']);
        const text = (exact as { $jsonText: string }).$jsonText;
        expect(exactJson(text)).toEqual(exactJson(EXACT_DOC)); // jsonb orders keys its own way; MariaDB keeps the text
        expect(ordinary).toEqual(ORDINARY_DOC);

        const check = async () => {
          const [one, two] = await storedDocs(target);
          // A text or MariaDB JSON column keeps the text as it came; jsonb keeps the same numbers.
          if (to === 'postgres') expect(exactJson(one.doc)).toEqual(exactJson(EXACT_DOC));
          else expect(one.doc).toBe(text);
          expect(JSON.parse(two.doc)).toEqual(ORDINARY_DOC);
        };
        const outcomes = await target.target().applyBatch?.({ job: docJob, mapping: docMapping, action: JobActionType.NewUpdate, messages: received });
        expect(outcomes?.map((o) => o.status)).toEqual(['applied', 'applied']);
        await check();
        await target.exec('DELETE FROM docs_t');
        const single = target.target();
        for (const m of received) await single.upsert(m, docMapping);
        await check();
      });
    });
  }
}

for (const name of ENGINE_NAMES) {
  describeEngine(name)(`a number watermark beyond 2^53 on ${name}`, () => {
    let db: SqlTestEngine;
    beforeAll(async () => {
      db = await openEngine(name);
      await db.exec(`CREATE TABLE big_ver (id ${name === 'sqlite' ? 'INTEGER' : 'int8'} PRIMARY KEY, ver ${name === 'sqlite' ? 'INTEGER' : 'int8'})`);
    });
    afterAll(() => db?.close());

    it('advances by the exact value and, with a cursor, continues after the exact key: the next run reads only the new row', async () => {
      await db.exec('INSERT INTO big_ver (id, ver) VALUES (9007199254740993, 9007199254740993), (9007199254740995, 9007199254740993), (1, 9007199254740994)');
      const m: Mapping = { name: 'big', source: { entity: 'big_ver', key: ['id'] }, target: { entity: 't', key: ['id'] }, fields: [{ target: 'id', source: 'id' }] };
      const j: Job = { ...job, name: 'big', mapping: 'big', watermark: { type: 'number', field: 'ver' }, pageSize: 1 };
      const watermark = WatermarkValue.initialize('number', null);
      const source = db.source();
      const first = await readRun(source, m, j, watermark);
      expect(first.messages.map((x) => [x.sourceKey, x.changeTracker, x.fields.id])).toEqual([
        ['9007199254740993', '9007199254740993', '9007199254740993'],
        ['9007199254740995', '9007199254740993', '9007199254740995'],
        ['1', '9007199254740994', name === 'sqlite' ? 1 : '1'],
      ]);
      // A later page from its cursor: the keyset continues after the exact (watermark, key) pair.
      const pages = [];
      for await (const page of source.retrieveChanges(m, j, WatermarkValue.initialize('number', null))) pages.push(page);
      const resumed = [];
      for await (const page of source.retrieveChanges(m, j, WatermarkValue.initialize('number', null), { cursor: pages[0].cursor })) resumed.push(...page.messages);
      expect(resumed.map((x) => x.sourceKey)).toEqual(['9007199254740995', '1']);

      expect(watermark.value).toBe('9007199254740994');
      await db.exec('INSERT INTO big_ver (id, ver) VALUES (2, 9007199254740995)');
      const second = await readRun(source, m, j, watermark);
      expect(second.messages.map((x) => x.sourceKey)).toEqual(['2']);
      expect(watermark.value).toBe('9007199254740995');
    });
  });
}

for (const name of ENGINE_NAMES) {
  describeEngine(name)(`a body written before the exact encoding, on ${name}`, () => {
    let db: SqlTestEngine;
    beforeAll(async () => {
      db = await openEngine(name);
      await db.exec(`CREATE TABLE vals_t (${TABLES[name]})`);
    });
    afterAll(() => db?.close());

    it('is applied as it always was: a number as that number, bytes as their base64 text, JSON as JSON', async () => {
      // Version 1 as written before: an integer already rounded to a double, bytes as base64 text.
      const body =
        '{"version":1,"jobName":"values","action":"NewUpdate","sourceKey":"7","targetKey":{"id":7},"changeTracker":"1",' +
        '"fields":{"id":7,"i8":1234567890123456768,"dec":"1.5","bin":"aGk=","ts":"2026-01-02T01:04:05.123Z","doc":{"a":1}},' +
        '"correlationId":"c","detectedAt":"2026-01-01T00:00:00.000Z"}';
      const outcomes = await db.target().applyBatch?.({ job, mapping, action: JobActionType.NewUpdate, messages: [deserializeQueueMessage(body)] });
      expect(outcomes).toEqual([{ status: 'applied' }]);
      const [row] = (await stored(db)) as Array<Record<string, unknown>>;
      // The double as each driver writes it, as before: SQLite its exact integer, pg its shortest text.
      const i8 = name === 'sqlite' ? '1234567890123456768' : '1234567890123456800';
      // MySQL's DECIMAL(32,12) shows its scale: the same number.
      expect(row).toMatchObject({ id: '7', i8, dec: name === 'mysql' ? '1.500000000000' : '1.5', ts: '2026-01-02T01:04:05.123000Z', doc: { a: 1 } });
      // The base64 text stays text (SQLite) or becomes bytea from its text (PostgreSQL), as before.
      expect(row.bin).toBe(Buffer.from('aGk=').toString('hex'));
    });
  });
}
