import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { describeEngine, openEngine, readRun, type SqlTestEngine } from './sql-test-engines';

const job: Job = {
  name: 'events', order: 1, schedule: '0 * * * * *', enabled: true, source: 's', target: 't', mapping: 'events',
  priority: 'normal', watermark: { type: 'datetime', field: 'modified' }, filter: [], action: JobActionType.NewUpdate,
  skipOutdatedMessages: false, skipUnchanged: false, pageSize: 1, lookbackSeconds: 0,
};
const mapping: Mapping = { name: 'events', source: { entity: 'events', key: ['id'] }, target: { entity: 'e', key: ['id'] }, fields: [{ target: 'id', source: 'id' }] };
const trackers = (messages: Array<{ sourceKey: string; changeTracker: string }>) => messages.map((m) => [m.sourceKey, m.changeTracker]);

describeEngine('postgres')('PostgreSQL watermark precision', () => {
  let db: SqlTestEngine;
  beforeAll(async () => (db = await openEngine('postgres')));
  afterAll(() => db?.close());

  it.each(['timestamptz', 'timestamp'])('keeps microseconds of %s columns in change trackers and bounds', async (type) => {
    await db.exec(`DROP TABLE IF EXISTS events; CREATE TABLE events (id INTEGER PRIMARY KEY, modified ${type}(6))`);
    await db.exec(
      `INSERT INTO events VALUES (1, '2026-01-01T00:00:00.123456Z'), (2, '2026-01-01T00:00:00.123457Z'), (3, '2026-01-01T00:00:00.123458Z')`,
    );
    const source = db.source();
    const watermark = WatermarkValue.initialize('datetime', '2026-01-01T00:00:00.123456Z');
    const run = await readRun(source, mapping, job, watermark);
    expect(trackers(run.messages)).toEqual([
      ['2', '2026-01-01T00:00:00.1234570Z'],
      ['3', '2026-01-01T00:00:00.1234580Z'],
    ]);
    expect(watermark.value).toBe('2026-01-01T00:00:00.1234580Z');
    expect((await readRun(source, mapping, job, watermark)).messages).toEqual([]);
    await db.exec(`INSERT INTO events VALUES (4, '2026-01-01T00:00:00.123459Z')`);
    expect(trackers((await readRun(source, mapping, job, watermark)).messages)).toEqual([['4', '2026-01-01T00:00:00.1234590Z']]);
  });
});

describeEngine('sqlite')('SQLite watermark columns', () => {
  let db: SqlTestEngine;
  beforeAll(async () => (db = await openEngine('sqlite')));
  afterAll(() => db?.close());

  it('compares CURRENT_TIMESTAMP-style text in its own format', async () => {
    await db.exec(`DROP TABLE IF EXISTS events; CREATE TABLE events (id INTEGER PRIMARY KEY, modified TEXT)`);
    await db.exec(`INSERT INTO events VALUES (1, '2026-01-01 00:00:01'), (2, '2026-01-01 00:00:02'), (3, '2026-01-01 00:00:10')`);
    const watermark = WatermarkValue.initialize('datetime', '2026-01-01T00:00:01.5000000Z');
    const run = await readRun(db.source(), mapping, job, watermark);
    expect(trackers(run.messages)).toEqual([
      ['2', '2026-01-01T00:00:02.0000000Z'],
      ['3', '2026-01-01T00:00:10.0000000Z'],
    ]);
    const lookback = await readRun(db.source(), mapping, { ...job, lookbackSeconds: 9 }, watermark);
    expect(trackers(lookback.messages).map(([id]) => id)).toEqual(['2', '3']);
    const shorter = await readRun(db.source(), mapping, { ...job, lookbackSeconds: 8 }, watermark);
    expect(trackers(shorter.messages).map(([id]) => id)).toEqual(['3']);
  });

  it('reads number watermarks (e.g. a row version) numerically', async () => {
    await db.exec(`DROP TABLE IF EXISTS events; CREATE TABLE events (id INTEGER PRIMARY KEY, rv INTEGER)`);
    await db.exec(`INSERT INTO events VALUES (1, 9), (2, 10), (3, 100)`);
    const numberJob = { ...job, watermark: { type: 'number', field: 'rv' } };
    const watermark = WatermarkValue.initialize('number', '9');
    expect(trackers((await readRun(db.source(), mapping, numberJob, watermark)).messages)).toEqual([['2', '10'], ['3', '100']]);
  });

  it('refuses datetime columns that do not hold ISO 8601 UTC text', async () => {
    await db.exec(`DROP TABLE IF EXISTS events; CREATE TABLE events (id INTEGER PRIMARY KEY, modified TEXT)`);
    await db.exec(`INSERT INTO events VALUES (1, '01.01.2026 10:00')`);
    await expect(readRun(db.source(), mapping, job, WatermarkValue.initialize('datetime', null))).rejects.toMatchObject({
      name: 'ConfigError',
      message: 'job "events": watermark field "modified": SQLite datetime watermarks must be ISO 8601 UTC text such as "2026-01-02T03:04:05.123Z", found "01.01.2026 10:00"',
    });
  });

  it('reports a missing database file as transient (the source is down)', async () => {
    const source = db.source(db.connection({ file: 'missing.db' }));
    await expect(readRun(source, mapping, job, WatermarkValue.initialize('datetime', null))).rejects.toMatchObject({
      name: 'ConfigError',
      message: 'sqlite connection "sqlite-test": read the maximum of "modified" in "events": the database file cannot be opened (check settings.file) (SQLITE_CANTOPEN): unable to open database file',
    });
  });
});
