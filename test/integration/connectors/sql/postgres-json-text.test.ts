import { types } from 'pg';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage, deserializeQueueMessage, type JsonValue, serializeQueueMessage } from '../../../../src/model/queue-message';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { describeEngine, openEngine, readRun, type SqlTestEngine } from './sql-test-engines';

/**
 * PostgreSQL `json` (kept as written) and `jsonb` documents with numbers beyond a double: read by
 * the pool's own type parsers as their text, written as that text into `json`, `jsonb` and `text`,
 * refused elsewhere naming the column; the global pg types, which other pools share, untouched.
 */
const VERBATIM = '{"b": 12345678901234567890,  "a": 1e400, "a": 2}'; // json keeps spacing, key order, duplicates, exponents
const ORDINARY = '{"x": [1, 2.5, "12345678901234567890"]}';

const job: Job = {
  name: 'docs', order: 1, schedule: '0 * * * * *', enabled: true, source: 's', target: 't', mapping: 'docs',
  priority: 'normal', watermark: { type: 'number', field: 'ver' }, filter: [], action: JobActionType.NewUpdate,
  skipOutdatedMessages: false, skipUnchanged: false, pageSize: 10, lookbackSeconds: 0,
};
const mapping: Mapping = { name: 'docs', source: { entity: 'docs', key: ['id'] }, target: { entity: 'docs_t', key: ['id'] }, fields: ['id', 'doc'].map((f) => ({ target: f, source: f })) };

describeEngine('postgres')('PostgreSQL json and jsonb documents beyond a double', () => {
  let db: SqlTestEngine;
  beforeAll(async () => {
    db = await openEngine('postgres');
    await db.exec(`CREATE TABLE docs (id int8 PRIMARY KEY, doc json, ver int8); INSERT INTO docs VALUES (1, '${VERBATIM}', 1), (2, '${ORDINARY}', 2)`);
  });
  afterAll(() => db?.close());

  it('reads a json document as written when a number in it is beyond a double, an ordinary one as JSON; the global parsers stay', async () => {
    const { messages } = await readRun(db.source(), mapping, job, WatermarkValue.initialize('number', null));
    const docs = messages.map((m) => deserializeQueueMessage(Buffer.from(serializeQueueMessage(m), 'utf8')).fields.doc);
    expect(docs).toEqual([{ $jsonText: VERBATIM }, JSON.parse(ORDINARY)]);
    expect(types.getTypeParser(3802, 'text')('{"a": 12345678901234567890}')).toEqual({ a: Number('12345678901234567890') }); // the default, as before
  });

  it('writes the text as it is into json, jsonb (numbers kept) and text columns, and refuses an integer column naming it', async () => {
    await db.exec('CREATE TABLE docs_t (id int8 PRIMARY KEY, doc json, docb jsonb, doct text, n int4)');
    const doc = { $jsonText: '{"id": 12345678901234567890, "price": 0.1000000000000000055511151231257827}' };
    const message = (fields: Record<string, unknown>) =>
      deserializeQueueMessage(serializeQueueMessage(createQueueMessage({ jobName: 'docs', action: JobActionType.NewUpdate, sourceKey: '1', targetKey: { id: 1 }, changeTracker: '1', fields: { id: 1, ...fields } as Record<string, JsonValue> })));
    const target = db.target();
    await target.upsert(message({ doc: { $jsonText: VERBATIM }, docb: doc, doct: doc }), mapping);
    expect(await db.select('SELECT doc::text AS doc, docb::text AS docb, doct FROM docs_t')).toEqual([
      { doc: VERBATIM, docb: '{"id": 12345678901234567890, "price": 0.1000000000000000055511151231257827}', doct: doc.$jsonText },
    ]);
    const outcomes = await target.applyBatch?.({ job, mapping, action: JobActionType.NewUpdate, messages: [message({ n: doc }), message({ doct: 'x' })] });
    expect(outcomes?.map((o) => o.status)).toEqual(['failed', 'applied']);
    expect((outcomes?.[0] as { error: Error }).error).toMatchObject({
      name: 'PermanentError',
      message: expect.stringMatching(/^column "n" of .*"docs_t": \{"id": 12345678901234567890, .*cannot be stored exactly \(a JSON document with numbers beyond a double is written exactly only into json, jsonb or text columns, not integer\)$/),
    });
    await expect(target.upsert(message({ n: doc }), mapping)).rejects.toMatchObject({ name: 'PermanentError', message: expect.stringContaining('column "n"') });
  });
});
