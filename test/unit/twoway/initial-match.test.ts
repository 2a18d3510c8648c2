import { JobActionType } from '../../../src/model/job';
import type { Mapping } from '../../../src/model/mapping';
import type { Pair, PairMatchField } from '../../../src/model/pair';
import { createQueueMessage, type JsonValue, type QueueMessage } from '../../../src/model/queue-message';
import type { Coupling } from '../../../src/twoway/coupling-store';
import { initialCoupling, matchFieldName, matchReadMapping, matchRecords, normalizeMatchValue } from '../../../src/twoway/initial-match';

const pairWith = (match: PairMatchField[] | undefined): Pair => ({
  name: 'accounts',
  a: { connection: 'crm', entity: 'accounts', key: ['no'], watermark: { type: 'datetime', field: 'modified' } },
  b: { connection: 'erp', entity: 'customers', key: ['nr'], watermark: { type: 'datetime', field: 'changed' } },
  fields: [
    { a: 'no', b: 'nr', direction: 'both' },
    { a: 'name', b: 'company', direction: 'both' },
    { a: 'email', b: 'mail', direction: 'toB', toB: [{ op: 'lower' }] },
  ],
  schedule: '0 * * * * *',
  enabled: true,
  priority: 'normal',
  conflicts: 'newest',
  deletes: 'propagate',
  ...(match ? { match } : {}),
});
const byEmail = pairWith([{ a: 'email', b: 'mail', ignoreCase: false }]);

/** A record as side a's job reads it: b's key field, and the raw match values. */
function recA(key: string, ...values: Array<JsonValue | undefined>): QueueMessage {
  return record('accounts.a-to-b', key, { nr: key }, values);
}
function recB(key: string, ...values: Array<JsonValue | undefined>): QueueMessage {
  return record('accounts.b-to-a', key, { no: key }, values);
}
function record(jobName: string, sourceKey: string, targetKey: Record<string, JsonValue>, values: Array<JsonValue | undefined>): QueueMessage {
  const fields: Record<string, JsonValue> = { ...targetKey };
  values.forEach((v, i) => {
    if (v !== undefined) fields[matchFieldName(i)] = v;
  });
  return createQueueMessage({ jobName, action: JobActionType.NewUpdate, sourceKey, targetKey, changeTracker: '2026-12-06T10:00:00.0000000Z', fields });
}
const coupling = (keyA: string, keyB: string): Coupling => ({ pair: 'accounts', keyA, keyB, hashA: {}, hashB: {}, trackerA: null, trackerB: null, syncedAt: '2026-12-06T10:00:00.000Z' });

describe('matchRecords', () => {
  it('matches records under different keys by an exact match field, one to one', () => {
    const result = matchRecords({ pair: byEmail, a: [recA('A-1', 'x@acme.test'), recA('A-2', 'y@acme.test')], b: [recB('C-77', 'x@acme.test'), recB('C-78', 'Y@acme.test')], couplings: [] });
    expect(result.matched).toEqual([{ keyA: 'A-1', keyB: 'C-77', by: 'fields' }]);
    // Exact: case matters.
    expect([result.unmatchedA, result.unmatchedB]).toEqual([['A-2'], ['C-78']]);
    expect(result.ambiguous).toEqual([]);
  });

  it('compares case-insensitively and trimmed with ignoreCase', () => {
    const pair = pairWith([{ a: 'email', b: 'mail', ignoreCase: true }]);
    const result = matchRecords({ pair, a: [recA('A-2', ' Y@Acme.test ')], b: [recB('C-78', 'y@acme.TEST')], couplings: [] });
    expect(result.matched).toEqual([{ keyA: 'A-2', keyB: 'C-78', by: 'fields' }]);
  });

  it('needs every match field to match when there are several', () => {
    const pair = pairWith([
      { a: 'name', b: 'company', ignoreCase: true },
      { a: 'email', b: 'mail', ignoreCase: false },
    ]);
    const result = matchRecords({
      pair,
      a: [recA('A-1', 'Acme', 'x@acme.test'), recA('A-2', 'Acme', 'y@acme.test')],
      b: [recB('C-1', 'ACME', 'x@acme.test'), recB('C-2', 'Other', 'y@acme.test')],
      couplings: [],
    });
    expect(result.matched).toEqual([{ keyA: 'A-1', keyB: 'C-1', by: 'fields' }]);
    expect([result.unmatchedA, result.unmatchedB]).toEqual([['A-2'], ['C-2']]);
  });

  it('lists ambiguous records with all their candidates, both ways, and guesses none', () => {
    const result = matchRecords({
      pair: byEmail,
      // Two a records want C-1; A-5 has two candidates.
      a: [recA('A-1', 'shared@x.test'), recA('A-2', 'shared@x.test'), recA('A-5', 'twice@x.test')],
      b: [recB('C-1', 'shared@x.test'), recB('C-5', 'twice@x.test'), recB('C-6', 'twice@x.test')],
      couplings: [],
    });
    expect(result.matched).toEqual([]);
    expect(result.ambiguous).toEqual([
      { values: ['shared@x.test'], a: ['A-1', 'A-2'], b: ['C-1'] },
      { values: ['twice@x.test'], a: ['A-5'], b: ['C-5', 'C-6'] },
    ]);
    expect([result.unmatchedA, result.unmatchedB]).toEqual([[], []]);
  });

  it('never matches a record with an empty or null match value', () => {
    const pair = pairWith([
      { a: 'name', b: 'company', ignoreCase: true },
      { a: 'email', b: 'mail', ignoreCase: true },
    ]);
    const result = matchRecords({
      pair,
      a: [recA('A-1', 'Acme', null), recA('A-2', 'Beta', '  '), recA('A-3', 'Gamma')],
      b: [recB('C-1', 'Acme', null), recB('C-2', 'Beta', ''), recB('C-3', 'Gamma')],
      couplings: [],
    });
    expect(result.matched).toEqual([]);
    expect(result.ambiguous).toEqual([]);
    expect([result.unmatchedA, result.unmatchedB]).toEqual([['A-1', 'A-2', 'A-3'], ['C-1', 'C-2', 'C-3']]);
  });

  it('skips records coupled already, and does not offer them as candidates', () => {
    const result = matchRecords({
      pair: byEmail,
      a: [recA('A-1', 'x@acme.test'), recA('A-2', 'x@acme.test')],
      b: [recB('C-1', 'x@acme.test'), recB('C-2', 'x@acme.test')],
      couplings: [coupling('A-1', 'C-1')],
    });
    expect([result.coupledA, result.coupledB]).toEqual([['A-1'], ['C-1']]);
    expect(result.matched).toEqual([{ keyA: 'A-2', keyB: 'C-2', by: 'fields' }]);
  });

  it('couples records by their shared key: always without match fields, with them only when they agree', () => {
    const a = [recA('K-1', 'k1@x.test'), recA('K-2', 'k2@x.test'), recA('A-3', 'k2b@x.test')];
    const b = [recB('K-1', 'k1@x.test'), recB('K-2', 'other@x.test'), recB('C-3', 'k2b@x.test')];
    expect(matchRecords({ pair: pairWith(undefined), a, b, couplings: [] })).toMatchObject({
      matched: [
        { keyA: 'K-1', keyB: 'K-1', by: 'key' },
        { keyA: 'K-2', keyB: 'K-2', by: 'key' },
      ],
      unmatchedA: ['A-3'],
      unmatchedB: ['C-3'],
    });
    const result = matchRecords({ pair: byEmail, a, b, couplings: [] });
    expect(result.matched).toEqual([
      { keyA: 'A-3', keyB: 'C-3', by: 'fields' },
      { keyA: 'K-1', keyB: 'K-1', by: 'key' },
    ]);
    // Left to the first sync, which pairs them by their key anyway; neither is offered to others.
    expect(result.keyOnly).toEqual([{ keyA: 'K-2', keyB: 'K-2' }]);
    expect([result.unmatchedA, result.unmatchedB]).toEqual([[], []]);
  });

  it('ignores records their side counts as deleted', () => {
    const gone = { ...recB('C-1', 'x@acme.test'), action: JobActionType.Delete as const };
    const result = matchRecords({ pair: byEmail, a: [recA('A-1', 'x@acme.test')], b: [gone], couplings: [] });
    expect(result.matched).toEqual([]);
    expect(result.unmatchedA).toEqual(['A-1']);
  });
});

describe('normalizeMatchValue', () => {
  it('compares as text; ignoreCase trims and lower-cases; blank is no value', () => {
    expect(normalizeMatchValue(42, false)).toBe('42');
    expect(normalizeMatchValue(' Ab ', false)).toBe(' Ab ');
    expect(normalizeMatchValue(' Ab ', true)).toBe('ab');
    expect(normalizeMatchValue('   ', false)).toBeUndefined();
    expect(normalizeMatchValue(null, true)).toBeUndefined();
  });
});

describe('matchReadMapping and initialCoupling', () => {
  it("adds a raw copy of each match field to the side's mapping", () => {
    const mapping: Mapping = { name: 'accounts.b-to-a', source: { entity: 'customers', key: ['nr'] }, target: { entity: 'accounts', key: ['no'] }, fields: [{ target: 'no', source: 'nr' }] };
    expect(matchReadMapping(mapping, byEmail.match!, 'b').fields).toEqual([
      { target: 'no', source: 'nr' },
      { target: '$match:0', source: 'mail' },
    ]);
  });

  it('writes a coupling without hashes or trackers', () => {
    expect(initialCoupling('accounts', { keyA: 'A-1', keyB: 'C-77', by: 'fields' }, new Date('2026-12-06T11:00:00Z'))).toEqual({
      pair: 'accounts',
      keyA: 'A-1',
      keyB: 'C-77',
      hashA: {},
      hashB: {},
      trackerA: null,
      trackerB: null,
      syncedAt: '2026-12-06T11:00:00.000Z',
    });
  });
});
