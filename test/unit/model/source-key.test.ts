import { joinSourceKey, splitSourceKey } from '../../../src/model/source-key';

describe('source key', () => {
  it.each([
    [['42'], '42'],
    [['A', 'B'], 'A|B'],
    [['a|b', 'c'], 'a\\|b|c'],
    [['back\\slash', ''], 'back\\\\slash|'],
    [[null, 7], '|7'],
  ])('joins %j as %p and splits back', (values, joined) => {
    expect(joinSourceKey(values)).toBe(joined);
    expect(splitSourceKey(joined)).toEqual(values.map((v) => (v === null ? '' : String(v))));
  });
});
