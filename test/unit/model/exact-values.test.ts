import { bytesToJson, decimalParts, fromMessageValue, integerOf, objectToJson, plainRecord, sameDecimal, taggedOf, toPlainJson } from '../../../src/model/exact-values';
import { deserializeQueueMessage, serializeQueueMessage, createQueueMessage } from '../../../src/model/queue-message';
import { JobActionType } from '../../../src/model/job';
import { toJsonValue } from '../../../connectors/base/connector-base';

const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

describe('exact values in a message body', () => {
  it('carries bytes 0x00..0xff as {"$binary"} through the JSON body and gives a target the same bytes', () => {
    const message = createQueueMessage({
      jobName: 'j', action: JobActionType.NewUpdate, sourceKey: '1', targetKey: { id: '9223372036854775807' }, changeTracker: '1',
      fields: { id: '9223372036854775807', bin: toJsonValue(ALL_BYTES, 'f'), big: toJsonValue(2n ** 63n - 1n, 'f'), small: toJsonValue(BigInt(-5), 'f') },
    });
    const back = deserializeQueueMessage(Buffer.from(serializeQueueMessage(message)));
    expect(back.fields.big).toBe('9223372036854775807');
    expect(back.fields.small).toBe(-5);
    const bytes = fromMessageValue(back.fields.bin);
    expect(Buffer.isBuffer(bytes) && bytes.equals(ALL_BYTES)).toBe(true);
    expect(toPlainJson(back.fields.bin)).toBe(ALL_BYTES.toString('base64'));
  });

  it('reads a body written before tagging (bytes as base64 text) as it always did: text stays text', () => {
    const body = '{"version":1,"jobName":"j","action":"NewUpdate","sourceKey":"1","targetKey":{"id":1},"changeTracker":"1","fields":{"id":1,"bin":"aGk=","n":1.5},"correlationId":"c","detectedAt":"2026-01-01T00:00:00.000Z"}';
    const message = deserializeQueueMessage(body);
    expect(fromMessageValue(message.fields.bin)).toBe('aGk=');
    expect(fromMessageValue(message.fields.n)).toBe(1.5);
  });

  it('tags only objects whose single key is a tag; a target gets the source object back', () => {
    const tagLike = { $binary: 'AAE=' };
    expect(objectToJson(tagLike)).toEqual({ $json: tagLike });
    expect(fromMessageValue(objectToJson(tagLike))).toEqual(tagLike);
    expect(toPlainJson(objectToJson(tagLike))).toEqual(tagLike);
    const plain = { a: 1, b: [1, 'x'] };
    expect(objectToJson(plain)).toBe(plain);
    expect(fromMessageValue(plain)).toBe(plain);
    expect(taggedOf({ $binary: 5 })).toBeUndefined(); // not a string: not bytes
    expect(taggedOf(['$binary'])).toBeUndefined();
    expect(fromMessageValue('{"$binary":"AAE="}')).toBe('{"$binary":"AAE="}'); // text is never decoded
    expect(bytesToJson(new Uint8Array(ALL_BYTES.buffer, ALL_BYTES.byteOffset + 1, 2))).toEqual({ $binary: Buffer.from([1, 2]).toString('base64') });
  });

  it('gives a JSON API (OData) plain JSON: bytes as base64 text, escaped objects as themselves; an untagged record is not copied', () => {
    const plain = { id: 1, name: 'x', doc: { a: 1 }, list: [1] };
    expect(plainRecord(plain)).toBe(plain);
    const tagged = { id: 1, bin: bytesToJson(Buffer.from('hi')), doc: objectToJson({ $json: 2 }) };
    expect(plainRecord(tagged)).toEqual({ id: 1, bin: 'aGk=', doc: { $json: 2 } });
    expect(tagged.bin).toEqual({ $binary: 'aGk=' }); // the message itself is left as it is
  });

  it('reads decimal literals exactly and compares them with doubles', () => {
    expect(decimalParts('-0012.3400')).toEqual({ negative: true, digits: '1234', exponent: -2 });
    expect(decimalParts(' 1e3 ')).toEqual({ negative: false, digits: '1', exponent: 3 });
    expect(decimalParts('-0.0')).toEqual({ negative: false, digits: '', exponent: 0 });
    expect(decimalParts('.5')).toEqual({ negative: false, digits: '5', exponent: -1 });
    for (const text of ['', '.', 'abc', '1.2.3', '0x10', 'Infinity', '1e']) expect(decimalParts(text)).toBeUndefined();
    expect(sameDecimal('0.1', 0.1)).toBe(true);
    expect(sameDecimal('1.50', 1.5)).toBe(true);
    expect(sameDecimal('9007199254740993', Number('9007199254740993'))).toBe(false); // 2^53 + 1 is no double
    expect(sameDecimal('12345678901234567890.123456789012', Number('12345678901234567890.123456789012'))).toBe(false);
    expect(sameDecimal('1e21', 1e21)).toBe(true);
    expect(integerOf('9223372036854775807')).toBe(2n ** 63n - 1n);
    expect(integerOf('-1.20e1')).toBe(-12n);
    expect(integerOf('1.5')).toBeUndefined();
    expect(integerOf('x')).toBeUndefined();
  });
});
