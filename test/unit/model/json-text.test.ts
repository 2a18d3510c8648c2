import { fromMessageValue, objectToJson, plainRecord, taggedOf, toPlainJson } from '../../../src/model/exact-values';
import { inexactNumbers, jsonDocumentOf, JsonText, spliceJsonTexts } from '../../../src/model/json-text';
import { createQueueMessage, deserializeQueueMessage, serializeQueueMessage } from '../../../src/model/queue-message';
import { JobActionType } from '../../../src/model/job';
import { toJsonValue } from '../../../connectors/base/connector-base';

const DOC = '{"id": 12345678901234567890, "price": 0.1000000000000000055511151231257827, "ok": [1, 2.5]}';

describe('JSON documents beyond a double', () => {
  it('parses a document whose numbers are exact as JS numbers, and keeps any other as its text', () => {
    expect(jsonDocumentOf('{"a": 1, "b": [2.5, -0.125, 123456789012345], "s": "12345678901234567890"}')).toEqual({ a: 1, b: [2.5, -0.125, 123456789012345], s: '12345678901234567890' });
    expect(jsonDocumentOf('{"a": 9007199254740991, "b": 1.5e3, "c": 0.30000000000000004, "d": 1.0}')).toEqual({ a: 9007199254740991, b: 1500, c: 0.30000000000000004, d: 1 });
    for (const text of [DOC, '9007199254740993', '[1e400]', '{"tiny": 1e-400}', '{"x":[0.1000000000000000055511151231257827]}']) {
      const kept = jsonDocumentOf(text);
      expect(kept).toBeInstanceOf(JsonText);
      expect(String(kept)).toBe(text);
    }
    expect(() => jsonDocumentOf('{"a": 12345678901234567890')).toThrow(SyntaxError);
    expect(jsonDocumentOf('"12345678901234567890"')).toBe('12345678901234567890'); // a string is exact
  });

  it('names the numbers a JS number would change, outside strings only', () => {
    expect(inexactNumbers(DOC)).toEqual(['12345678901234567890', '0.1000000000000000055511151231257827']);
    expect(inexactNumbers('{"s": "a 12345678901234567890 b\\" 1e400", "n": 2}')).toEqual([]);
    expect(inexactNumbers('{"a": 1}')).toEqual([]);
  });

  it('travels as {"$jsonText"} through the JSON body, and a target gets the exact text', () => {
    const doc = toJsonValue(jsonDocumentOf(DOC), 'f');
    expect(doc).toEqual({ $jsonText: DOC });
    const message = createQueueMessage({ jobName: 'j', action: JobActionType.NewUpdate, sourceKey: '1', targetKey: { id: 1 }, changeTracker: '1', fields: { id: 1, doc, plain: toJsonValue(jsonDocumentOf('{"a":[1,2]}'), 'f') } });
    const back = deserializeQueueMessage(Buffer.from(serializeQueueMessage(message)));
    expect(back.fields.plain).toEqual({ a: [1, 2] }); // an ordinary document stays an ordinary JSON value
    expect(taggedOf(back.fields.doc)).toEqual({ tag: '$jsonText', text: DOC });
    const bound = fromMessageValue(back.fields.doc);
    expect(bound).toBeInstanceOf(JsonText);
    expect((bound as JsonText).text).toBe(DOC);
  });

  it('escapes a source object that only looks like the tag', () => {
    const tagLike = { $jsonText: '1' };
    expect(objectToJson(tagLike)).toEqual({ $json: tagLike });
    expect(fromMessageValue(objectToJson(tagLike))).toEqual(tagLike);
    expect(taggedOf({ $jsonText: 5 })).toBeUndefined();
  });

  it('writes the document itself into a request body (OData), every digit as read', () => {
    const record = plainRecord({ id: 1, doc: { $jsonText: DOC } });
    expect(record.doc).toBeInstanceOf(JsonText);
    expect(toPlainJson({ $jsonText: '[1]' })).toBeInstanceOf(JsonText);
    const body = spliceJsonTexts(JSON.stringify({ requests: [{ body: record }], note: 'a "quoted" \\ text' }));
    expect(body).toBe(`{"requests":[{"body":{"id":1,"doc":${DOC}}}],"note":"a \\"quoted\\" \\\\ text"}`);
    expect(spliceJsonTexts('{"a":1}')).toBe('{"a":1}');
    const awkward = '{"s": "quote \\" and \\\\ and \\u0000", "n": 1e400}';
    expect(spliceJsonTexts(JSON.stringify([new JsonText(awkward)]))).toBe(`[${awkward}]`);
  });
});
