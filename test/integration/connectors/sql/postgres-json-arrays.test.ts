import { types } from 'pg';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage, deserializeQueueMessage, type JsonValue, serializeQueueMessage } from '../../../../src/model/queue-message';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { describeEngine, openEngine, readRun, type SqlTestEngine } from './sql-test-engines';

/**
 * PostgreSQL `json[]` and `jsonb[]` columns: read by the pool's own array parser, each element as
 * a `json`/`jsonb` value is; an array with an element beyond a double travels as one exact JSON
 * array text (`$jsonText`), an ordinary one as a JSON array; a target writes either back element
 * by element, and refuses an exact text that is no array naming the column; pg's global array
 * parsers untouched.
 */
const job: Job = {
  name: 'arrs', order: 1, schedule: '0 * * * * *', enabled: true, source: 's', target: 't', mapping: 'arrs',
  priority: 'normal', watermark: { type: 'number', field: 'ver' }, filter: [], action: JobActionType.NewUpdate,
  skipOutdatedMessages: false, skipUnchanged: false, pageSize: 10, lookbackSeconds: 0,
};
const mapping: Mapping = { name: 'arrs', source: { entity: 'arrs', key: ['id'] }, target: { entity: 'arrs_t', key: ['id'] }, fields: ['id', 'doc', 'docb'].map((f) => ({ target: f, source: f })) };

describeEngine('postgres')('PostgreSQL json[] and jsonb[] arrays beyond a double', () => {
  let db: SqlTestEngine;
  beforeAll(async () => {
    db = await openEngine('postgres');
    await db.exec(
      'CREATE TABLE arrs (id int8 PRIMARY KEY, doc json[], docb jsonb[], ver int8);' +
        `INSERT INTO arrs VALUES (1, ARRAY['{"a": 12345678901234567890,  "b": 1e400}', '[1, 2]', NULL, 'null']::json[], ARRAY['{"a": 1}', '0.1000000000000000055511151231257827']::jsonb[], 1),` +
        `(2, ARRAY['{"x": [1, 2.5, "12345678901234567890"]}', NULL]::json[], ARRAY[ARRAY['1', '2'], ARRAY['3', '98765432109876543210']]::jsonb[], 2),` +
        `(3, '{}'::json[], NULL, 3)`,
    );
  });
  afterAll(() => db?.close());

  it('reads an array with an element beyond a double as one exact JSON array text, an ordinary one as a JSON array', async () => {
    const { messages } = await readRun(db.source(), mapping, job, WatermarkValue.initialize('number', null));
    const fields = messages.map((m) => deserializeQueueMessage(Buffer.from(serializeQueueMessage(m), 'utf8')).fields);
    expect(fields.map((f) => [f.doc, f.docb])).toEqual([
      [{ $jsonText: '[{"a": 12345678901234567890,  "b": 1e400}, [1, 2], null, null]' }, { $jsonText: '[{"a": 1}, 0.1000000000000000055511151231257827]' }],
      [[{ x: [1, 2.5, '12345678901234567890'] }, null], { $jsonText: '[[1, 2], [3, 98765432109876543210]]' }],
      [[], null],
    ]);
    expect(types.getTypeParser(3807 as Parameters<typeof types.getTypeParser>[0], 'text')('{"{\\"a\\": 12345678901234567890}"}')).toEqual([{ a: Number('12345678901234567890') }]); // the default, as before
  });

  // A null element goes back as JSON null (JSON has no SQL NULL to tell it from).
  it('writes a JSON array, exact text or value, back into json[] and jsonb[] element by element; refuses an exact text that is no array naming the column', async () => {
    await db.exec('CREATE TABLE arrs_t (id int8 PRIMARY KEY, doc json[], docb jsonb[])');
    const message = (id: number, fields: Record<string, unknown>) =>
      deserializeQueueMessage(serializeQueueMessage(createQueueMessage({ jobName: 'arrs', action: JobActionType.NewUpdate, sourceKey: String(id), targetKey: { id }, changeTracker: '1', fields: { id, ...fields } as Record<string, JsonValue> })));
    const target = db.target();
    const exact = { $jsonText: '[{"a": 12345678901234567890,  "s": "x\\"y,]"}, null, [1, 2]]' };
    await target.upsert(message(1, { doc: exact, docb: exact }), mapping);
    const outcomes = await target.applyBatch?.({
      job, mapping, action: JobActionType.NewUpdate,
      messages: [message(2, { doc: exact, docb: { $jsonText: '[0.1000000000000000055511151231257827]' } }), message(3, { doc: [{ a: 1 }, 'x'], docb: [] }), message(4, { docb: { $jsonText: '12345678901234567890' } })],
    });
    expect(outcomes?.map((o) => o.status)).toEqual(['applied', 'applied', 'failed']);
    expect((outcomes?.[2] as { error: Error }).error).toMatchObject({
      name: 'PermanentError',
      message: expect.stringMatching(/^column "docb" of .*"arrs_t": 12345678901234567890 cannot be stored exactly \(a JSON document with numbers beyond a double goes into a json\[\] or jsonb\[\] column only as a JSON array\)$/),
    });
    expect(await db.select('SELECT id, doc::text AS doc, docb::text AS docb FROM arrs_t ORDER BY id')).toEqual([
      { id: '1', doc: '{"{\\"a\\": 12345678901234567890,  \\"s\\": \\"x\\\\\\"y,]\\"}","null","[1, 2]"}', docb: '{"{\\"a\\": 12345678901234567890, \\"s\\": \\"x\\\\\\"y,]\\"}","null","[1, 2]"}' },
      { id: '2', doc: '{"{\\"a\\": 12345678901234567890,  \\"s\\": \\"x\\\\\\"y,]\\"}","null","[1, 2]"}', docb: '{0.1000000000000000055511151231257827}' },
      { id: '3', doc: '{"{\\"a\\":1}","\\"x\\""}', docb: '{}' },
    ]);
  });
});
