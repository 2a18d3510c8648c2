import { keySegment, literal, queryString, renderCondition, renderFilter } from '../../../../connectors/odata';
import { matchesCondition } from '../../../../connectors/odata/odata-filter';
import { identifier, watermarkLiteral } from '../../../../connectors/odata/odata-literals';

describe('OData literals, keys and filters', () => {
  it('writes literals by value', () => {
    expect([1.5, -3, true, null, "O'Brien", 'A-1', '8c0c3b61-2ff0-f011-8544-000d3a4a1b2c', '2026-01-02T03:04:05.1234567Z', '2026-01-02'].map((v) => literal(v, 'w'))).toEqual([
      '1.5', '-3', 'true', 'null', "'O''Brien'", "'A-1'", '8c0c3b61-2ff0-f011-8544-000d3a4a1b2c', '2026-01-02T03:04:05.1234567Z', "'2026-01-02'",
    ]);
    expect(() => literal({ a: 1 }, 'field "x"')).toThrow('field "x": a object has no OData literal');
    // Bytes (Edm.Binary): base64url, from a Buffer or from a message's {"$binary": base64}.
    expect(literal(Buffer.from([0xfb, 0xff, 0x00]), 'w')).toBe("binary'-_8A'");
    expect(literal({ $binary: Buffer.from([0xfb, 0xff, 0x00]).toString('base64') }, 'w')).toBe("binary'-_8A'");
    expect(() => literal({ $json: { $binary: 'x' } }, 'field "x"')).toThrow('field "x": a object has no OData literal');
    expect(literal('9223372036854775807', 'w')).toBe("'9223372036854775807'"); // text stays text (an Edm.String key)
    expect(watermarkLiteral('datetime', '2026-01-02T03:04:05.0000000Z')).toBe('2026-01-02T03:04:05.0000000Z');
    expect(watermarkLiteral('string', "it's")).toBe("'it''s'");
  });

  it('writes key segments, percent-encoded for a path', () => {
    expect(keySegment([['ID', 7]], false, 'k')).toBe('(ID=7)');
    expect(keySegment([['accountid', '8c0c3b61-2ff0-f011-8544-000d3a4a1b2c']], true, 'k')).toBe('(8c0c3b61-2ff0-f011-8544-000d3a4a1b2c)');
    expect(keySegment([['no', 'A/1 #2'], ['mail', 'ann@example.com']], false, 'k')).toBe("(no='A%2F1%20%232',mail='ann@example.com')");
  });

  it('refuses names that are not identifiers', () => {
    expect(() => identifier('Books?$top=1', 'mapping "m": source.entity')).toThrow(
      'mapping "m": source.entity: "Books?$top=1" is not an OData identifier (letters, digits and _, not starting with a digit)',
    );
  });

  it('renders job filters', () => {
    expect(renderCondition({ field: 'status', op: 'in', value: ['open', 'won'] }, 'f')).toBe("(status eq 'open' or status eq 'won')");
    expect(renderCondition({ field: 'status', op: 'notIn', value: [1, 2] }, 'f')).toBe('(status ne 1 and status ne 2)');
    expect(renderCondition({ field: 'status', op: 'in', value: [] }, 'f')).toBe('false');
    expect(renderCondition({ field: 'name', op: 'like', value: '%Ltd%' }, 'f')).toBe("contains(name,'Ltd')");
    expect(renderCondition({ field: 'name', op: 'like', value: 'new_%' }, 'f')).toBe("startswith(name,'new_')");
    expect(renderCondition({ field: 'name', op: 'like', value: '%Inc' }, 'f')).toBe("endswith(name,'Inc')");
    expect(renderCondition({ field: 'deleted', op: 'isNull' }, 'f')).toBe('deleted eq null');
    expect(renderCondition({ field: 'qty', op: 'ge', value: 3 }, 'f')).toBe('qty ge 3');
    expect(() => renderCondition({ field: 'name', op: 'like', value: 'a%b' }, 'job "j": filter[0]')).toThrow(
      'job "j": filter[0].value: OData supports % only at the start or end of a like pattern',
    );
    expect(renderFilter([{ field: 'a', op: 'eq', value: 1 }, { field: 'b', op: 'ne', value: null }], 'f')).toBe('(a eq 1) and (b ne null)');
    expect(renderFilter([], 'f')).toBeUndefined();
  });

  it('evaluates conditions on records read', () => {
    const row = { state: 'inactive', qty: 0, name: 'Contoso Ltd', gone: null };
    expect(matchesCondition(row, { field: 'state', op: 'eq', value: 'inactive' })).toBe(true);
    expect(matchesCondition(row, { field: 'qty', op: 'le', value: 0 })).toBe(true);
    expect(matchesCondition(row, { field: 'name', op: 'like', value: '%Ltd' })).toBe(true);
    expect(matchesCondition(row, { field: 'gone', op: 'ne', value: 'x' })).toBe(false);
    expect(matchesCondition(row, { field: 'gone', op: 'isNull' })).toBe(true);
    expect(matchesCondition(row, { field: 'state', op: 'notIn', value: ['active'] })).toBe(true);
  });

  it('builds readable query strings', () => {
    expect(queryString([['$select', 'a,b'], ['$filter', "name eq 'A&B #1'"], ['$top', undefined]])).toBe("?$select=a,b&$filter=name%20eq%20'A%26B%20%231'");
  });
});
