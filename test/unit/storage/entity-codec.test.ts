import {
  MAX_ENTITY_BYTES,
  assertEntityFits,
  decodeJsonProperties,
  encodeJsonProperties,
  entitySizeBytes,
} from '../../../src/storage/entity-codec';

describe('entity codec', () => {
  it('stores a small value in one part', () => {
    expect(encodeJsonProperties({ a: 1 })).toEqual({ DefinitionParts: 1, Definition_0: '{"a":1}' });
  });

  it('splits long JSON into numbered parts within the property limit and reassembles it', () => {
    const value = { name: 'big', text: 'x'.repeat(70_000) };
    const props = encodeJsonProperties(value);
    expect(props.DefinitionParts).toBe(3);
    expect((props.Definition_0 as string).length).toBe(32_000);
    expect((props.Definition_2 as string).length).toBe(JSON.stringify(value).length - 64_000);
    expect(decodeJsonProperties('mapping "big"', props)).toEqual(value);
  });

  it('writes ASCII-only parts, so neither UTF-8 chunking nor part boundaries can corrupt characters', () => {
    const value = { text: 'aä😀€' };
    const props = encodeJsonProperties(value, { partChars: 5 });
    const parts = Array.from({ length: props.DefinitionParts as number }, (_, i) => props[`Definition_${i}`] as string);
    expect(parts.join('')).toBe('{"text":"a\\u00e4\\ud83d\\ude00\\u20ac"}');
    expect(parts.every((p) => p.length <= 5 && /^[ -~]*$/.test(p))).toBe(true);
    expect(decodeJsonProperties('x', props)).toEqual(value);
  });

  it('uses the given prefix', () => {
    expect(encodeJsonProperties([1], { prefix: 'Body' })).toEqual({ BodyParts: 1, Body_0: '[1]' });
  });

  it('rejects a part size over 32K characters', () => {
    expect(() => encodeJsonProperties(1, { partChars: 40_000 })).toThrow('partChars must be an integer from 1 to 32768, got 40000');
  });

  it('names the item when parts are missing or corrupt', () => {
    expect(() => decodeJsonProperties('job "j1"', {})).toThrow('job "j1": stored entity has no valid DefinitionParts property');
    expect(() => decodeJsonProperties('job "j1"', { DefinitionParts: 2, Definition_0: '{' })).toThrow(
      'job "j1": stored entity is missing Definition_1 of 2 parts',
    );
    expect(() => decodeJsonProperties('job "j1"', { DefinitionParts: 1, Definition_0: '{' })).toThrow(/^job "j1": stored Definition is not valid JSON/);
  });

  it('computes the entity size as Table Storage counts it', () => {
    // 4 + 2*(1+2) + [8 + 2*1 + 4 + 2*3] + [8 + 2*1 + 8] + [8 + 2*1 + 1]
    expect(entitySizeBytes('p', 'rk', { s: 'abc', d: new Date(0), b: true, n: null })).toBe(10 + 20 + 18 + 11);
  });

  it('rejects an entity over 1 MiB, naming the item', () => {
    const props = encodeJsonProperties({ text: 'y'.repeat(530_000) });
    const size = entitySizeBytes('config', 'huge', props);
    expect(size).toBeGreaterThan(MAX_ENTITY_BYTES);
    expect(() => assertEntityFits('mapping "huge"', 'config', 'huge', props)).toThrow(
      `mapping "huge" is too large to store: ${size} bytes, over the Table Storage limit of 1048576 bytes (1 MiB) per entity`,
    );
    expect(() => assertEntityFits('mapping "ok"', 'config', 'ok', encodeJsonProperties({ text: 'y'.repeat(500_000) }))).not.toThrow();
  });
});
