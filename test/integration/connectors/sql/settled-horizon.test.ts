import { Client } from 'pg';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { describeEngine, openEngine, PG_URL, readRun, type SqlTestEngine } from './sql-test-engines';

/**
 * Rows that appear after a run read, with a stamp at or below what it read, are the ones a
 * watermark loses: the rest of the same second (stamps of second resolution), and rows of a
 * transaction that was open while the run read (PostgreSQL `now()` is the transaction's start,
 * visible at commit). A run reads only up to the source's settled horizon, so the next run finds them.
 */
const job: Job = {
  name: 'horizon', order: 1, schedule: '0 * * * * *', enabled: true, source: 's', target: 't', mapping: 'events',
  priority: 'normal', watermark: { type: 'datetime', field: 'modified' }, filter: [], action: JobActionType.NewUpdate,
  skipOutdatedMessages: false, skipUnchanged: false, pageSize: 100, lookbackSeconds: 0,
};
const mapping: Mapping = { name: 'events', source: { entity: 'events', key: ['id'] }, target: { entity: 'e', key: ['id'] }, fields: [{ target: 'id', source: 'id' }] };
const ids = (run: { messages: Array<{ sourceKey: string }> }) => run.messages.map((m) => m.sourceKey);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeEngine('sqlite')('settled horizon on SQLite (second-resolution stamps)', () => {
  let db: SqlTestEngine;
  beforeAll(async () => (db = await openEngine('sqlite')));
  afterAll(() => db?.close());

  it('leaves the current second to the next run, so a row written later in that second is not lost', async () => {
    await db.exec(`CREATE TABLE events (id INTEGER PRIMARY KEY, modified TEXT NOT NULL DEFAULT (datetime('now')))`);
    await db.exec(`INSERT INTO events (id, modified) VALUES (1, datetime('now', '-10 seconds'))`);
    // Row 2 and, after the run, row 3 share the stamp of the current second.
    const [{ now }] = (await db.select(`SELECT datetime('now') AS now`)) as Array<{ now: string }>;
    await db.exec(`INSERT INTO events (id, modified) VALUES (2, '${now}')`);
    const watermark = WatermarkValue.initialize('datetime', null);
    expect(ids(await readRun(db.source(), mapping, job, watermark))).toEqual(['1']);
    await db.exec(`INSERT INTO events (id, modified) VALUES (3, '${now}')`);
    // Once the second (and the settle margin) is over, the next run reads both.
    await sleep(2100);
    expect(ids(await readRun(db.source(), mapping, job, watermark))).toEqual(['2', '3']);
    expect(watermark.value).toBe(`${now.replace(' ', 'T')}.0000000Z`);
  });

  it('sends nothing on repeated runs of a quiet source', async () => {
    const watermark = WatermarkValue.initialize('datetime', null);
    expect(ids(await readRun(db.source(), mapping, job, watermark))).toEqual(['1', '2', '3']);
    expect(ids(await readRun(db.source(), mapping, job, watermark))).toEqual([]);
    expect(ids(await readRun(db.source(), mapping, job, watermark))).toEqual([]);
  });

  it('a job sets its settle margin: settleSeconds 0 reads up to the current second (excluded)', async () => {
    await db.exec(`DROP TABLE events; CREATE TABLE events (id INTEGER PRIMARY KEY, modified TEXT NOT NULL)`);
    await db.exec(`INSERT INTO events VALUES (1, datetime('now', '-2 seconds')), (2, datetime('now', '+1 seconds'))`);
    expect(ids(await readRun(db.source(), mapping, { ...job, settleSeconds: 0 }, WatermarkValue.initialize('datetime', null)))).toEqual(['1']);
    expect(ids(await readRun(db.source(), mapping, { ...job, settleSeconds: 5 }, WatermarkValue.initialize('datetime', null)))).toEqual([]);
  });

  it('a row stamped in the future waits for its time instead of moving the watermark past every later change', async () => {
    await db.exec(`DROP TABLE events; CREATE TABLE events (id INTEGER PRIMARY KEY, modified TEXT NOT NULL)`);
    await db.exec(`INSERT INTO events VALUES (1, datetime('now', '-5 seconds')), (2, '2999-01-01 00:00:00')`);
    const watermark = WatermarkValue.initialize('datetime', null);
    expect(ids(await readRun(db.source(), mapping, job, watermark))).toEqual(['1']);
    await db.exec(`INSERT INTO events VALUES (3, datetime('now', '-3 seconds'))`);
    expect(ids(await readRun(db.source(), mapping, job, watermark))).toEqual(['3']);
  });

  it('date watermarks read only the days that are over', async () => {
    await db.exec(`DROP TABLE events; CREATE TABLE events (id INTEGER PRIMARY KEY, modified TEXT NOT NULL)`);
    await db.exec(`INSERT INTO events VALUES (1, date('now', '-1 days')), (2, date('now'))`);
    const dateJob = { ...job, watermark: { type: 'date', field: 'modified' } };
    expect(ids(await readRun(db.source(), mapping, dateJob, WatermarkValue.initialize('date', null)))).toEqual(['1']);
  });
});

describeEngine('postgres')('settled horizon on PostgreSQL (late commits)', () => {
  let db: SqlTestEngine;
  let writer: Client;
  let schema: string;
  beforeAll(async () => {
    db = await openEngine('postgres');
    schema = String(db.connection().settings.schema);
    writer = new Client({ connectionString: PG_URL, application_name: 'late-writer' });
    await writer.connect();
    await writer.query(`SET search_path TO ${schema}`);
  });
  afterAll(async () => {
    await writer?.query('ROLLBACK').catch(() => undefined);
    await writer?.end();
    await db?.close();
  });

  it('a row stamped by now() in a transaction that commits after a later row was read is not lost', async () => {
    await db.exec(`CREATE TABLE events (id INTEGER PRIMARY KEY, modified timestamptz NOT NULL DEFAULT now())`);
    await db.exec(`INSERT INTO events (id, modified) VALUES (1, now() - interval '1 minute')`);
    // The late writer stamps row 2 with its start; row 3 is committed after, with a later stamp.
    await writer.query('BEGIN');
    await writer.query('INSERT INTO events (id) VALUES (2)');
    await sleep(1100);
    await db.exec(`INSERT INTO events (id) VALUES (3)`);
    await sleep(1100);
    const watermark = WatermarkValue.initialize('datetime', null);
    const warnings: string[] = [];
    const source = db.source({ ...db.connection() });
    expect(ids(await readRun(source, mapping, job, watermark))).toEqual(['1']);
    await writer.query('COMMIT');
    await sleep(1100);
    expect(ids(await readRun(source, mapping, job, watermark))).toEqual(['2', '3']);
    expect(ids(await readRun(source, mapping, job, watermark))).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('a counter from a sequence: a number drawn by a transaction still open is waited for, not passed', async () => {
    await db.exec(`CREATE TABLE counted (id bigserial PRIMARY KEY, name text)`);
    await writer.query('BEGIN');
    await writer.query(`INSERT INTO counted (name) VALUES ('first')`);
    await db.exec(`INSERT INTO counted (name) VALUES ('second')`);
    const numberJob = { ...job, watermark: { type: 'number', field: 'id' } };
    const countedMapping = { ...mapping, source: { entity: 'counted', key: ['id'] } };
    const watermark = WatermarkValue.initialize('number', null);
    // The run waits for the open writer; it commits meanwhile.
    const commit = sleep(300).then(() => writer.query('COMMIT'));
    const run = await readRun(db.source(), countedMapping, numberJob, watermark);
    await commit;
    expect(ids(run)).toEqual(['1', '2']);
    expect(watermark.value).toBe('2');
  });
});
