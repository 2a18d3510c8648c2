import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage, type JsonValue } from '../../../../src/model/queue-message';
import { describeEngine, openEngine, type SqlTestEngine } from './sql-test-engines';

/** A value a target column cannot hold exactly fails its message, naming the column; nothing is rounded. */
const job = { name: 'values', action: JobActionType.NewUpdate } as Job;
const mapping: Mapping = { name: 'values', source: { entity: 's', key: ['id'] }, target: { entity: 'r', key: ['id'] }, fields: [] };
const message = (id: number, fields: Record<string, JsonValue>) =>
  createQueueMessage({ jobName: 'values', action: JobActionType.NewUpdate, sourceKey: String(id), targetKey: { id }, changeTracker: '1', fields: { id, ...fields } });
const DECIMAL = '12345678901234567890.123456789012';

interface Outcome { status: string; error?: unknown }
const described = (o: Outcome) => (o.status === 'failed' ? `${(o.error as Error).name}: ${(o.error as Error).message}` : o.status);

describeEngine('sqlite')('exact values refused by a SQLite target', () => {
  let db: SqlTestEngine;
  beforeAll(async () => {
    db = await openEngine('sqlite');
    await db.exec('CREATE TABLE r (id INTEGER PRIMARY KEY, n NUMERIC, i INTEGER, f REAL, t TEXT)');
  });
  afterAll(() => db?.close());

  const messages = [
    message(1, { n: DECIMAL }),
    message(2, { i: '9223372036854775808' }),
    message(3, { f: '9007199254740993' }),
    message(4, { t: DECIMAL, i: '9223372036854775807', n: '1.5', f: '0.1' }),
    message(5, { i: '-9223372036854775808', n: 'not a number', t: 0.1 + 0.2 }),
  ];
  const expected = [
    `PermanentError: column "n" of "r": ${DECIMAL} cannot be stored exactly in a column of NUMERIC affinity (more digits than an 8-byte float holds); SQLite would round it: declare the column TEXT to keep the exact digits`,
    'PermanentError: column "i" of "r": 9223372036854775808 cannot be stored exactly in a column of INTEGER affinity (beyond the 64-bit integer range); SQLite would round it: declare the column TEXT to keep the exact digits',
    'PermanentError: column "f" of "r": 9007199254740993 cannot be stored exactly in a column of REAL affinity (more digits than an 8-byte float holds); SQLite would round it: declare the column TEXT to keep the exact digits',
    'applied',
    'applied',
  ];
  const rows = () => db.select('SELECT id, typeof(i) AS ti, CAST(i AS TEXT) AS i, typeof(n) AS tn, CAST(n AS TEXT) AS n, f, t FROM r ORDER BY id');
  const kept = [
    { id: 4, ti: 'integer', i: '9223372036854775807', tn: 'real', n: '1.5', f: 0.1, t: DECIMAL },
    { id: 5, ti: 'integer', i: '-9223372036854775808', tn: 'text', n: 'not a number', f: null, t: '0.30000000000000004' },
  ];

  it('in a batch: those items fail, naming the column; the others are written exactly', async () => {
    const outcomes = await db.target().applyBatch?.({ job, mapping, action: JobActionType.NewUpdate, messages });
    expect(outcomes?.map(described)).toEqual(expected);
    expect(await rows()).toEqual(kept);
  });

  it('one by one: the same', async () => {
    await db.exec('DELETE FROM r');
    const target = db.target();
    const results = await Promise.all(messages.map((m) => target.upsert(m, mapping).then(() => ({ status: 'applied' }), (error: unknown) => ({ status: 'failed', error }))));
    expect(results.map(described)).toEqual(expected);
    expect(await rows()).toEqual(kept);
  });
});

describeEngine('postgres')('exact values refused by a PostgreSQL target', () => {
  let db: SqlTestEngine;
  beforeAll(async () => {
    db = await openEngine('postgres');
    await db.exec('CREATE TABLE r (id int8 PRIMARY KEY, n numeric(12,2), i int8, s int4, d double precision, u numeric, ts timestamptz)');
  });
  afterAll(() => db?.close());

  const messages = [
    message(1, { n: '1.005' }),
    message(2, { i: '9223372036854775808' }),
    message(3, { s: 1.5 }),
    message(4, { d: DECIMAL }),
    message(5, { ts: '2026-01-02T03:04:05.1234567Z' }),
    message(6, { n: '1234567890.12', i: '-9223372036854775808', s: '2147483647', d: '0.1', u: DECIMAL, ts: '2026-01-02T03:04:05.1234560Z' }),
  ];
  const entity = /"hw_test_\w+"\."r"/.source;
  const problems = [
    'column "n" of ENTITY: 1\\.005 cannot be stored exactly \\(more than 2 fraction digits: numeric\\(12,2\\) would round it\\)',
    'column "i" of ENTITY: 9223372036854775808 cannot be stored exactly \\(beyond the range of bigint\\)',
    'column "s" of ENTITY: 1\\.5 cannot be stored exactly \\(not an integer, as integer needs\\)',
    `column "d" of ENTITY: ${DECIMAL.replace('.', '\\.')} cannot be stored exactly \\(more digits than double precision holds\\)`,
    'column "ts" of ENTITY: 2026-01-02T03:04:05\\.1234567Z cannot be stored exactly \\(more than 6 fraction digits of a second: timestamp with time zone would round it\\)',
  ];
  const expected = [...problems.map((p) => expect.stringMatching(new RegExp(`^PermanentError: ${p.replace('ENTITY', entity)}$`))), 'applied'];
  const rows = () => db.select('SELECT id::text AS id, n::text AS n, i::text AS i, s, d, u::text AS u, ts::text AS ts FROM r ORDER BY id');
  const kept = [{ id: '6', n: '1234567890.12', i: '-9223372036854775808', s: 2147483647, d: 0.1, u: DECIMAL, ts: '2026-01-02 03:04:05.123456+00' }];

  it('in a batch: values PostgreSQL would round or refuse fail, naming the column; the others are written exactly', async () => {
    const outcomes = await db.target().applyBatch?.({ job, mapping, action: JobActionType.NewUpdate, messages });
    expect(outcomes?.map(described)).toEqual(expected);
    expect(await rows()).toEqual(kept);
  });

  it('one by one: the same', async () => {
    await db.exec('DELETE FROM r');
    const target = db.target();
    const results = [];
    for (const m of messages) results.push(await target.upsert(m, mapping).then(() => ({ status: 'applied' }), (error: unknown) => ({ status: 'failed', error })));
    expect(results.map(described)).toEqual(expected);
    expect(await rows()).toEqual(kept);
  });
});
