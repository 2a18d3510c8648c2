import { parseExactJson } from '../../../../connectors/odata/exact-json';
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
});
