import { parseExactJson, parseExactRows } from '../../../../connectors/odata/exact-json';
import { JsonText } from '../../../../src/model/json-text';
import { rowsOf } from '../../../../connectors/odata/source-rows';
import type { OdataResponse } from '../../../../connectors/odata/odata-http';

/** An answer as OdataHttpClient gives it: the text and its JSON.parse. */
const answer = (text: string): OdataResponse => ({ status: 200, url: 'http://x/', headers: new Headers({ 'content-type': 'application/json' }), body: JSON.parse(text), text });

describe('exact numbers in OData answers', () => {
  it('reads Edm.Int64 beyond 2^53 and long Edm.Decimal values as their exact digits; other numbers stay numbers', () => {
    const text =
      '{"@odata.context":"$metadata#T","value":[{"ID":1,"big":9223372036854775807,"min":-9223372036854775808,"near":9007199254740993,' +
      '"safe":9007199254740991,"amount":12345678901234567890.123456789012,"split":1234567.1234567891,"price":0.1,"exp":1.5e300,"name":"a \\"9223372036854775807\\" b","g":"8c0c3b61-2ff0-f011-8544-000d3a4a1b2c"}]}';
    expect(rowsOf(answer(text), 'read T')).toEqual([
      {
        ID: 1, big: '9223372036854775807', min: '-9223372036854775808', near: '9007199254740993', safe: 9007199254740991,
        amount: '12345678901234567890.123456789012', split: '1234567.1234567891', price: 0.1, exp: 1.5e300, name: 'a "9223372036854775807" b', g: '8c0c3b61-2ff0-f011-8544-000d3a4a1b2c',
      },
    ]);
  });

  it('reads a pretty-printed answer the same', () => {
    expect(parseExactJson('{\n  "value": [\n    9223372036854775807,\n    1\n  ]\n}')).toEqual({ value: ['9223372036854775807', 1] });
  });

  it('leaves an answer without a run of 16 digits to the first parse, and strings with escapes untouched', () => {
    expect(parseExactJson('{"value":[{"a":123456789012345,"t":"2026-01-02T03:04:05.1234567Z"}]}')).toBeUndefined();
    const tricky = '{"s":"\\\\","n":12345678901234567890,"t":"x\\\\\\"12345678901234567890\\"","u":[1e400000000000000000]}';
    expect(() => parseExactJson(tricky)).not.toThrow();
    expect(parseExactJson(tricky)).toEqual({ s: '\\', n: '12345678901234567890', t: 'x\\"12345678901234567890"', u: ['1e400000000000000000'] });
  });

  it('gives the answer as parsed when every long number is exact in a double', () => {
    const text = '{"value":[{"a":1234567890123456800000}]}';
    expect(rowsOf(answer(text), 'read')).toEqual([{ a: 1234567890123456800000 }]);
  });

  // A recorded answer of a set with a complex property (`dims`), a collection (`tags`), an
  // Edm.Untyped one (`extra`, `raw`) and typed scalars beside them.
  const types = new Map([['ID', 'Edm.Int32'], ['big', 'Edm.Int64'], ['dims', 'Hw.Dims'], ['tags', 'Collection(Edm.Decimal)'], ['extra', 'Edm.Untyped'], ['raw', 'Edm.Untyped'], ['plain', 'Hw.Dims']]);
  const recorded =
    '{"@odata.context":"$metadata#Things","value":[{"ID":1,"big":9223372036854775807,' +
    '"dims":{"w":12345678901234567890,"label":"x \\"12345678901234567891\\"","nested":[1.5,{"d":0.12345678901234567890123}]},' +
    '"tags":[1,-98765432109876543210],"extra":{"n":null,"v":123456789012345678901234567890},"raw":18446744073709551615,' +
    '"plain":{"w":1,"h":"9223372036854775807"}}]}';

  it('carries a complex, collection or untyped value holding a long number as its exact JSON text; typed scalars as digits', () => {
    const [row] = rowsOf(answer(recorded), 'read Things', types);
    expect(row.ID).toBe(1);
    expect(row.big).toBe('9223372036854775807');
    expect(row.dims).toEqual(new JsonText('{"w":12345678901234567890,"label":"x \\"12345678901234567891\\"","nested":[1.5,{"d":0.12345678901234567890123}]}'));
    expect(row.tags).toEqual(new JsonText('[1,-98765432109876543210]'));
    expect(row.extra).toEqual(new JsonText('{"n":null,"v":123456789012345678901234567890}'));
    expect(row.raw).toEqual(new JsonText('18446744073709551615'));
    // A document without such a number stays a plain value, its strings strings.
    expect(row.plain).toEqual({ w: 1, h: '9223372036854775807' });
    // Each text is JSON whose numbers are the digits as sent.
    expect(JSON.parse((row.dims as JsonText).text).label).toBe('x "12345678901234567891"');
  });

  it('keeps a bare long number of an untyped-looking property as digits when no types are known (a typed scalar it most often is)', () => {
    const [row] = rowsOf(answer(recorded), 'read Things');
    expect(row.raw).toBe('18446744073709551615');
    expect(row.dims).toBeInstanceOf(JsonText);
  });

  it('leaves a body without numbers beyond a double to the first parse', () => {
    expect(parseExactRows('{"value":[{"dims":{"w":1234567890123456}}]}', types)).toBeUndefined();
    expect(parseExactRows('{"value":[{"dims":{"w":9007199254740991.0}}]}', types)).toBeUndefined();
  });
});
