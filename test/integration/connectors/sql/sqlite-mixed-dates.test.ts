import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { openEngine, readRun, type SqlTestEngine } from './sql-test-engines';

/**
 * SQLite datetime watermark columns written SQLite's way: any mix of the text forms its date
 * functions read, or numbers (julian days, unix seconds). Each run must see every row changed
 * after the watermark exactly once, and the change query must still use the column's index.
 */
const job: Job = {
  name: 'events', order: 1, schedule: '0 * * * * *', enabled: true, source: 's', target: 't', mapping: 'events',
  priority: 'normal', watermark: { type: 'datetime', field: 'modified' }, filter: [], action: JobActionType.NewUpdate,
  skipOutdatedMessages: false, skipUnchanged: false, pageSize: 2, lookbackSeconds: 0,
};
const mapping: Mapping = { name: 'events', source: { entity: 'events', key: ['id'] }, target: { entity: 'e', key: ['id'] }, fields: [{ target: 'id', source: 'id' }] };
const ids = (messages: Array<{ sourceKey: string }>) => messages.map((m) => m.sourceKey).sort();
const what = 'job "events": watermark field "modified"';

describe('SQLite datetime columns in SQLite\'s own forms', () => {
  let db: SqlTestEngine;
  beforeAll(async () => (db = await openEngine('sqlite')));
  afterAll(() => db?.close());
  beforeEach(() => db.exec(`DROP TABLE IF EXISTS events; CREATE TABLE events (id TEXT PRIMARY KEY, modified); CREATE INDEX events_modified ON events (modified, id)`));

  it('detects a datetime(\'now\')-style value after a T…Z watermark (the issue\'s case: text order would skip it)', async () => {
    await db.exec(`INSERT INTO events VALUES ('a', '2026-12-01T22:59:00.000Z'), ('b', '2026-12-01 23:57:28')`);
    const watermark = WatermarkValue.initialize('datetime', '2026-12-01T23:00:00.0000000Z');
    const run = await readRun(db.source(), mapping, job, watermark);
    expect(run.messages.map((m) => [m.sourceKey, m.changeTracker])).toEqual([['b', '2026-12-01T23:57:28.0000000Z']]);
    expect(watermark.value).toBe('2026-12-01T23:57:28.0000000Z');
  });

  it('mixed forms over several runs: none skipped, none repeated (lookback 0), an offset maximum does not stop the job', async () => {
    const source = db.source();
    const watermark = WatermarkValue.initialize('datetime', null);
    const batches: Array<Array<[string, string]>> = [
      [['a1', '2026-12-01 10:00:00'], ['a2', '2026-12-01T10:00:01Z'], ['a3', '2026-12-01T10:00:01.5'], ['a4', '2026-12-01 10:00:02.25Z']],
      // The column's text maximum carries an offset (11:10Z): the job goes on.
      [['b1', '2026-12-01T13:10:00+02:00'], ['b2', '2026-12-01 11:00'], ['b3', '2026-12-01 10:30:00.123456789']],
      [['c1', '2026-12-01T11:05:00Z'], ['c2', '2026-12-02 01:00:00+05:00'], ['c3', '2026-12-01T20:00:00-03:00']],
      [['d1', '2026-12-02']],
    ];
    const expected = [['a1', 'a2', 'a3', 'a4'], ['b1', 'b2', 'b3'], ['c2', 'c3'], ['d1']];
    for (const [i, rows] of batches.entries()) {
      for (const [id, at] of rows) await db.exec(`INSERT INTO events VALUES ('${id}', '${at}')`);
      expect(ids((await readRun(source, mapping, job, watermark)).messages)).toEqual(expected[i]);
    }
    // c1 (11:05Z) was older than the watermark (11:10Z from b1) when it arrived: a late commit, which only the lookback covers.
    expect(watermark.value).toBe('2026-12-02T00:00:00.0000000Z');
    expect((await readRun(source, mapping, job, watermark)).messages).toEqual([]);
    const lookback = WatermarkValue.initialize('datetime', '2026-12-01T11:10:00.0000000Z');
    expect(ids((await readRun(source, mapping, { ...job, lookbackSeconds: 600 }, lookback)).messages)).toEqual(['b1', 'c1', 'c2', 'c3', 'd1']);
  });

  it.each([
    ['julian day numbers', `julianday('2026-12-01 10:00:00')`, `julianday('2026-12-01 10:00:00.001')`, `julianday('2026-12-01 11:00:00')`],
    ['unix seconds', `unixepoch('2026-12-01 10:00:00')`, `unixepoch('2026-12-01 10:00:00') + 0.001`, `unixepoch('2026-12-01 11:00:00')`],
  ])('numeric columns of %s', async (_kind, first, second, third) => {
    await db.exec(`INSERT INTO events VALUES ('a', ${first}), ('b', ${second})`);
    const watermark = WatermarkValue.initialize('datetime', null);
    const run = await readRun(db.source(), mapping, job, watermark);
    expect(run.messages.map((m) => [m.sourceKey, m.changeTracker])).toEqual([['a', '2026-12-01T10:00:00.0000000Z'], ['b', '2026-12-01T10:00:00.0010000Z']]);
    expect((await readRun(db.source(), mapping, job, watermark)).messages).toEqual([]);
    await db.exec(`INSERT INTO events VALUES ('c', ${third})`);
    expect(ids((await readRun(db.source(), mapping, job, watermark)).messages)).toEqual(['c']);
  });

  it.each([
    ['numbers and text', `(1, 2461011.5), (2, '2026-12-01 10:00:00')`, `${what}: the column holds both numbers and text (e.g. 2461011.5 and "2026-12-01 10:00:00"); a SQLite datetime watermark column must hold one or the other`],
    ['julian days and unix seconds', `(1, 2461011.5), (2, 1796169448)`, `${what}: the column holds both julian day numbers and unix seconds (e.g. 2461011.5 and 1796169448); use one of them`],
    ['milliseconds', `(1, 1796169448000)`, `${what}: SQLite datetime watermarks must be ISO 8601 UTC text such as "2026-01-02T03:04:05.123Z", found 1796169448000 (a number that is neither a julian day nor unix seconds; milliseconds are not read)`],
    ['a date that does not exist', `(1, '2026-02-30 10:00:00')`, `${what}: SQLite datetime watermarks must be ISO 8601 UTC text such as "2026-01-02T03:04:05.123Z", found "2026-02-30 10:00:00" (no such date or time)`],
  ])('refuses %s, naming the column and the value', async (_case, values, message) => {
    await db.exec(`INSERT INTO events VALUES ${values}`);
    await expect(readRun(db.source(), mapping, job, WatermarkValue.initialize('datetime', null))).rejects.toMatchObject({ name: 'ConfigError', message });
  });

  it('refuses a value SQLite does not read as a date-time when a run reaches it', async () => {
    await db.exec(`INSERT INTO events VALUES ('a', '2026-12-01 10:00:00'), ('b', '2026-12-01 noon'), ('c', '2026-12-01 12:00:00')`);
    await expect(readRun(db.source(), mapping, job, WatermarkValue.initialize('datetime', null))).rejects.toMatchObject({
      name: 'ConfigError',
      message: `${what}: SQLite datetime watermarks must be ISO 8601 UTC text such as "2026-01-02T03:04:05.123Z", found "2026-12-01 noon"`,
    });
  });

  it('the change query still searches the column index', async () => {
    // The shape SqlSource sends (sql-query.ts): superset text bounds on the raw column, keyset order.
    const plan = await db.select(
      `EXPLAIN QUERY PLAN SELECT *, 0 AS "__highwater_deleted" FROM events WHERE modified <= '2026-12-02' AND modified > '2026-11-30' ORDER BY modified, id LIMIT 2`,
    );
    expect(plan.map((row) => String(row.detail))).toEqual([expect.stringMatching(/^SEARCH events USING (COVERING )?INDEX events_modified \(modified>\? AND modified<\?\)$/)]);
  });
});
