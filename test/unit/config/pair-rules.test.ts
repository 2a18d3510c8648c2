import { validateConfig } from '../../../src/config/validate-config';
import { ConfigValidationError } from '../../../src/platform/config-issue';
import { pairConfig, validRawPair, type RawPair } from './pair-fixture';

/** `[file, path, message]` of every issue, or [] when the configuration is valid. */
function issues(input: object): Array<[string, string, string]> {
  try {
    validateConfig(input as Parameters<typeof validateConfig>[0]);
    return [];
  } catch (err) {
    if (!(err instanceof ConfigValidationError)) throw err;
    return err.issues.map((issue) => [issue.file, issue.path, issue.message]);
  }
}

/** The issues of the valid pair after `change`. */
function pairIssues(change: (pair: RawPair) => void): Array<[string, string, string]> {
  const pair = validRawPair();
  change(pair);
  return issues(pairConfig(pair));
}

describe('pair rules', () => {
  it('pass the design example', () => {
    expect(pairIssues(() => {})).toEqual([]);
  });

  it('name an unknown connection of either side', () => {
    expect(
      pairIssues((p) => {
        p.a.connection = 'crn';
        p.b.connection = 'nope';
      }),
    ).toEqual([
      ['pairs', 'pairs[0].a.connection', 'unknown connection "crn" (known: crm, erp)'],
      ['pairs', 'pairs[0].b.connection', 'unknown connection "nope" (known: crm, erp)'],
    ]);
  });

  it('name a field mapped twice on either side, and where it is mapped first', () => {
    expect(
      pairIssues((p) => {
        p.fields[4].a = 'name';
        p.fields.push({ a: 'phone', b: 'company_name' });
      }),
    ).toEqual([
      ['pairs', 'pairs[0].fields[4].a', 'field "name" of side a is already mapped by fields[1]'],
      ['pairs', 'pairs[0].fields[5].b', 'field "company_name" of side b is already mapped by fields[1]'],
    ]);
  });

  it('require every key field of each side to travel both ways', () => {
    expect(
      pairIssues((p) => {
        p.a.key = ['account_no', 'region'];
        p.fields[0].direction = 'toB';
      }),
    ).toEqual([
      ['pairs', 'pairs[0].a.key[0]', 'key field "account_no" of side a flows one way only (fields[0]): give that field direction "both" (the sides must share a key)'],
      ['pairs', 'pairs[0].a.key[1]', 'key field "region" of side a is not in fields: add it as the a of a field with direction "both" (the sides must share a key)'],
      ['pairs', 'pairs[0].b.key[0]', 'key field "customer_no" of side b flows one way only (fields[0]): give that field direction "both" (the sides must share a key)'],
    ]);
  });

  it('refuse an operation without inverse on a field that flows both ways', () => {
    expect(
      pairIssues((p) => {
        p.fields[2].toB = [{ op: 'lower' }];
        p.fields[1].toA = [{ op: 'trim' }, { op: 'upper' }];
      }),
    ).toEqual([
      ['pairs', 'pairs[0].fields[1].toA', 'operation "trim" has no inverse: make the field one-way (direction "toA") or remove the operation'],
      ['pairs', 'pairs[0].fields[2].toB', 'operation "lower" has no inverse: make the field one-way (direction "toB") or remove the operation'],
    ]);
  });

  it('refuse a valueMap that maps two values to one, maps to null, has a default, or is one of several', () => {
    const valueMap = (map: object, more: object = {}) => [{ op: 'valueMap', map, ...more }];
    expect(
      pairIssues((p) => {
        p.fields[1].toB = valueMap({ A: 'x', B: 'x' });
        p.fields[2].toB = valueMap({ A: 'active' }, { default: 'inactive' });
        p.fields.push({ a: 'kind', b: 'type', toA: valueMap({ P: null }) });
        p.fields.push({ a: 'tier', b: 'level', toB: [...valueMap({ 1: 'one' }), ...valueMap({ one: 'first' })] });
      }),
    ).toEqual([
      ['pairs', 'pairs[0].fields[1].toB', 'operation "valueMap" has no inverse (it maps "A" and "B" to the same value): make the field one-way (direction "toB") or remove the operation'],
      ['pairs', 'pairs[0].fields[2].toB', 'operation "valueMap" has no inverse (it has a default): make the field one-way (direction "toB") or remove the operation'],
      ['pairs', 'pairs[0].fields[5].toA', 'operation "valueMap" has no inverse (it maps "P" to null): make the field one-way (direction "toA") or remove the operation'],
      ['pairs', 'pairs[0].fields[6].toB', 'only a single valueMap has an inverse, not a chain of operations: make the field one-way (direction "toB") or remove the operation'],
    ]);
  });

  it('accept toB and toA given both ways when they are each other\'s inverse, and name them when not', () => {
    expect(pairIssues((p) => (p.fields[2].toA = [{ op: 'valueMap', map: { inactive: 'I', active: 'A' } }]))).toEqual([]);
    expect(pairIssues((p) => (p.fields[2].toA = [{ op: 'valueMap', map: { active: 'A', inactive: 'X' } }]))).toEqual([
      ['pairs', 'pairs[0].fields[2].toA', 'is not the inverse of toB: give toB alone (its inverse is derived) or make toA map each value back to where toB took it'],
    ]);
  });

  it('refuse operations for the way a one-way field never flows', () => {
    expect(
      pairIssues((p) => {
        p.fields[3].toA = [{ op: 'upper' }];
        p.fields[4].toB = [];
      }),
    ).toEqual([
      ['pairs', 'pairs[0].fields[3].toA', 'the field flows toB only, so toA is never applied: remove toA or give the field direction "both"'],
      ['pairs', 'pairs[0].fields[4].toB', 'the field flows toA only, so toB is never applied: remove toB or give the field direction "both"'],
    ]);
  });

  it('require datetime watermarks on both sides for "newest", of the pair (the default) or a field', () => {
    expect(
      pairIssues((p) => {
        p.b.watermark = { type: 'number', field: 'row_version' };
        p.fields[1].conflict = 'newest';
      }),
    ).toEqual([
      ['pairs', 'pairs[0].conflicts', '"newest" needs both watermarks of type datetime (side b\'s is "number"): set conflicts to a, b or manual'],
      ['pairs', 'pairs[0].fields[1].conflict', '"newest" needs both watermarks of type datetime (side b\'s is "number"): set conflict to a, b or manual'],
    ]);
    expect(
      pairIssues((p) => {
        p.b.watermark = { type: 'number', field: 'row_version' };
        p.conflicts = 'a';
      }),
    ).toEqual([]);
  });

  it('require match fields to be pair fields of their side', () => {
    expect(pairIssues((p) => (p.match = [{ a: 'email', b: 'email' }, { a: 'vat', b: 'company_name' }]))).toEqual([
      ['pairs', 'pairs[0].match[0].b', 'field "email" of side b is not a pair field (fields[].b): add it to fields or match by another field'],
      ['pairs', 'pairs[0].match[1].a', 'field "vat" of side a is not a pair field (fields[].a): add it to fields or match by another field'],
    ]);
  });

  it('name a hand-written job or mapping that has the name of a generated one, and a duplicate pair', () => {
    const config = pairConfig(validRawPair(), validRawPair());
    config.mappings.push({ name: 'accounts.b-to-a', source: { entity: 'x', key: ['id'] }, target: { entity: 'y', key: ['id'] }, fields: [{ target: 'id', source: 'id' }] });
    config.jobs.push({ name: 'accounts.a-to-b', schedule: '0 * * * * *', source: 'crm', target: 'erp', mapping: 'accounts.b-to-a', watermark: { type: 'datetime', field: 'modified_at' } });
    expect(issues(config)).toEqual([
      ['pairs', 'pairs[0].name', 'the pair\'s job "accounts.a-to-b" has the name of job jobs[0]: rename the pair or the job'],
      ['pairs', 'pairs[0].name', 'the pair\'s mapping "accounts.b-to-a" has the name of mapping mappings[0]: rename the pair or the mapping'],
      ['pairs', 'pairs[1].name', 'duplicate pair name "accounts" (also pairs[0])'],
      ['pairs', 'pairs[1].name', 'the pair\'s job "accounts.a-to-b" has the name of job jobs[0]: rename the pair or the job'],
      ['pairs', 'pairs[1].name', 'the pair\'s mapping "accounts.b-to-a" has the name of mapping mappings[0]: rename the pair or the mapping'],
    ]);
  });

  it('fill the defaults of the schema and refuse unknown properties', () => {
    const pair = validRawPair();
    const config = validateConfig(pairConfig(pair));
    expect(config.pairs[0]).toMatchObject({ enabled: true, priority: 'normal', conflicts: 'newest', deletes: 'propagate' });
    expect(config.pairs[0].fields[1].direction).toBe('both');
    delete pair.schedule;
    pair.match = [{ a: 'email', b: 'mail' }];
    expect(validateConfig(pairConfig(pair)).pairs[0]).toMatchObject({ schedule: '0 * * * * *', match: [{ a: 'email', b: 'mail', ignoreCase: false }] });
    expect(pairIssues((p) => (p.fields[0].way = 'both'))).toEqual([['pairs', 'pairs[0].fields[0].way', expect.stringMatching(/^unknown property/)]]);
  });

  it('is optional: a configuration without pairs has none', () => {
    const { connections, mappings, jobs } = pairConfig();
    expect(validateConfig({ connections, mappings, jobs }).pairs).toEqual([]);
  });
});
