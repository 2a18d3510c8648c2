import type { Mapping } from '../../../src/model/mapping';
import type { Pair } from '../../../src/model/pair';
import { fieldHash } from '../../../src/twoway/field-hash';
import { mergeRecord, type MergeInput, type RecordView } from '../../../src/twoway/merge-record';
import { syncFields } from '../../../src/twoway/sync-fields';

const statusMap = { A: 'active', I: 'inactive' };
const pair: Pair = {
  name: 'accounts',
  a: { connection: 'crm', entity: 'accounts', key: ['no'], watermark: { type: 'datetime', field: 'modified' } },
  b: { connection: 'erp', entity: 'customers', key: ['nr'], watermark: { type: 'datetime', field: 'changed' } },
  fields: [
    { a: 'no', b: 'nr', direction: 'both' },
    { a: 'name', b: 'company', direction: 'both' },
    { a: 'status', b: 'state', direction: 'both', toB: [{ op: 'valueMap', map: statusMap }] },
    { a: 'email', b: 'mail', direction: 'toB', toB: [{ op: 'lower' }] },
    { a: 'limit', b: 'limit', direction: 'toA' },
  ],
  schedule: '0 * * * * *',
  enabled: true,
  priority: 'normal',
  conflicts: 'newest',
  deletes: 'propagate',
};
const aToB: Mapping = {
  name: 'accounts.a-to-b',
  source: { entity: 'accounts', key: ['no'] },
  target: { entity: 'customers', key: ['nr'] },
  fields: [
    { target: 'nr', source: 'no' },
    { target: 'company', source: 'name' },
    { target: 'state', source: 'status', operations: [{ op: 'valueMap', map: statusMap }] },
    { target: 'mail', source: 'email', operations: [{ op: 'lower' }] },
  ],
};
const bToA: Mapping = {
  name: 'accounts.b-to-a',
  source: { entity: 'customers', key: ['nr'] },
  target: { entity: 'accounts', key: ['no'] },
  fields: [
    { target: 'no', source: 'nr' },
    { target: 'name', source: 'company' },
    { target: 'status', source: 'state', operations: [{ op: 'valueMap', map: { active: 'A', inactive: 'I' } }] },
    { target: 'limit', source: 'limit' },
  ],
};
const fieldsA = syncFields(pair, 'a', aToB, bToA);

/** Side a's record as a's job reads it (b's names and notation). */
const aView = (v: { name: string; status: string; email: string }, tracker = '2026-12-06T10:00:00Z'): RecordView => ({
  fields: { nr: '1', company: v.name, state: (statusMap as Record<string, string>)[v.status], mail: v.email.toLowerCase() },
  tracker,
});
/** Side b's record as b's job reads it (a's names and notation). */
const bView = (v: { company: string; state: string; limit: number }, tracker = '2026-12-06T10:00:00Z'): RecordView => ({
  fields: { no: '1', name: v.company, status: v.state === 'active' ? 'A' : 'I', limit: v.limit },
  tracker,
});
/** The coupling after a sync of these two records. */
function synced(a: RecordView, b: RecordView): NonNullable<MergeInput['base']> {
  const result = mergeRecord({ pair, side: 'a', fields: fieldsA, s: a, t: b, base: undefined, newer: () => undefined });
  return result.hashes as NonNullable<MergeInput['base']>;
}
const input = (over: Partial<MergeInput>): MergeInput => ({ pair, side: 'a', fields: fieldsA, newer: () => undefined, ...over });

describe('mergeRecord', () => {
  const a0 = aView({ name: 'Acme', status: 'A', email: 'x@acme.test' });
  const b0 = bView({ company: 'Acme', state: 'active', limit: 100 });

  it('derives the fields from the generated mappings, with keys and directions', () => {
    expect(fieldsA.map((f) => [f.id, f.s, f.t, f.flows, f.key])).toEqual([
      ['no', 'no', 'nr', 'both', true],
      ['name', 'name', 'company', 'both', false],
      ['status', 'status', 'state', 'both', false],
      ['email', 'email', 'mail', 'toT', false],
      ['limit', 'limit', 'limit', 'toS', false],
    ]);
  });

  it('writes nothing when both sides are as they were at the last sync (an echo, a stale copy)', () => {
    const base = synced(a0, b0);
    const result = mergeRecord(input({ s: a0, t: b0, base }));
    expect(result.writeT).toBeUndefined();
    expect(result.writeS).toBeUndefined();
    expect(result.hashes).toEqual(base);
  });

  it('carries a change of side a to side b only, in b notation, and predicts how b reads it back', () => {
    const base = synced(a0, b0);
    const a1 = aView({ name: 'Acme Ltd', status: 'I', email: 'x@acme.test' });
    const result = mergeRecord(input({ s: a1, t: b0, base }));
    expect(result.writeT).toEqual({ kind: 'upsert', fields: { company: 'Acme Ltd', state: 'inactive' }, create: false });
    expect(result.writeS).toBeUndefined();
    // b now reads back as b would after the write: the next merge is quiet.
    const b1 = bView({ company: 'Acme Ltd', state: 'inactive', limit: 100 });
    const again = mergeRecord(input({ s: a1, t: b1, base: result.hashes as never }));
    expect([again.writeT, again.writeS]).toEqual([undefined, undefined]);
  });

  it('carries a change of side b back to side a from a message of side a', () => {
    const base = synced(a0, b0);
    const b1 = bView({ company: 'Acme', state: 'active', limit: 250 });
    const result = mergeRecord(input({ s: a0, t: b1, base }));
    expect(result.writeS).toEqual({ kind: 'upsert', fields: { limit: 250 }, create: false });
    expect(result.writeT).toBeUndefined();
  });

  it('merges fields changed on different sides without a conflict', () => {
    const base = synced(a0, b0);
    const a1 = aView({ name: 'Acme Ltd', status: 'A', email: 'x@acme.test' });
    const b1 = bView({ company: 'Acme', state: 'inactive', limit: 100 });
    const result = mergeRecord(input({ s: a1, t: b1, base }));
    expect(result.writeT).toEqual({ kind: 'upsert', fields: { company: 'Acme Ltd' }, create: false });
    expect(result.writeS).toEqual({ kind: 'upsert', fields: { status: 'I' }, create: false });
    expect(result.decisions).toEqual([]);
  });

  it('resolves a field changed on both sides by the newest tracker, and logs both trackers', () => {
    const base = synced(a0, b0);
    const a1 = aView({ name: 'From A', status: 'A', email: 'x@acme.test' }, '2026-12-06T10:05:00Z');
    const b1 = bView({ company: 'From B', state: 'active', limit: 100 }, '2026-12-06T10:06:00Z');
    const result = mergeRecord(input({ s: a1, t: b1, base, newer: () => 't' }));
    expect(result.writeS).toEqual({ kind: 'upsert', fields: { name: 'From B' }, create: false });
    expect(result.writeT).toBeUndefined();
    expect(result.decisions).toEqual(['field "name" changed on both sides (s a tracker 2026-12-06T10:05:00Z, other side tracker 2026-12-06T10:06:00Z): side b wins (newest)']);
  });

  it('parks a field changed on both sides under manual, keeps its old hashes and writes the rest', () => {
    const base = synced(a0, b0);
    const manual = { ...pair, fields: pair.fields.map((f) => (f.a === 'name' ? { ...f, conflict: 'manual' as const } : f)) };
    const fields = syncFields(manual, 'a', aToB, bToA);
    const a1 = aView({ name: 'From A', status: 'I', email: 'x@acme.test' });
    const b1 = bView({ company: 'From B', state: 'active', limit: 100 });
    const result = mergeRecord(input({ pair: manual, fields, s: a1, t: b1, base }));
    expect(result.parked).toEqual(['name']);
    expect(result.writeT).toEqual({ kind: 'upsert', fields: { state: 'inactive' }, create: false });
    expect((result.hashes as NonNullable<MergeInput['base']>).s.name).toBe(base.s.name);
    // Resolved by hand for side a: a's value wins the parked field.
    const resolved = mergeRecord(input({ pair: manual, fields, s: a1, t: b1, base, resolution: 'a' }));
    expect(resolved.parked).toEqual([]);
    expect(resolved.writeT).toEqual({ kind: 'upsert', fields: { company: 'From A', state: 'inactive' }, create: false });
  });

  it('treats every field as changed on both sides under a coupling without hashes (initial coupling): equal ones are recorded, differing ones go by the policy', () => {
    const initial = { s: {}, t: {} };
    const a1 = aView({ name: 'Acme GmbH', status: 'A', email: 'X@Acme.test' }, '2026-12-06T10:05:00Z');
    const b1 = bView({ company: 'Acme', state: 'active', limit: 100 }, '2026-12-06T10:06:00Z');
    const byA = mergeRecord(input({ pair: { ...pair, conflicts: 'a' }, fields: syncFields({ ...pair, conflicts: 'a' }, 'a', aToB, bToA), s: a1, t: b1, base: initial }));
    // name differs: a wins; status is equal: only recorded; one-way fields flow their way.
    expect(byA.writeT).toEqual({ kind: 'upsert', fields: { company: 'Acme GmbH', mail: 'x@acme.test' }, create: false });
    expect(byA.writeS).toEqual({ kind: 'upsert', fields: { limit: 100 }, create: false });
    expect(byA.decisions).toEqual(['field "name" changed on both sides (s a tracker 2026-12-06T10:05:00Z, other side tracker 2026-12-06T10:06:00Z): side a wins (a)']);
    const newest = mergeRecord(input({ s: a1, t: b1, base: initial, newer: () => 't' }));
    expect(newest.writeS).toEqual({ kind: 'upsert', fields: { name: 'Acme', limit: 100 }, create: false });
    // Afterwards both sides read as the coupling now says: the next merge is quiet.
    const a2 = aView({ name: 'Acme', status: 'A', email: 'X@Acme.test' });
    const again = mergeRecord(input({ s: a2, t: b1, base: newest.hashes as never }));
    expect([again.writeT, again.writeS]).toEqual([undefined, undefined]);
  });

  it('creates a record missing on the other side with every field, keys included', () => {
    const result = mergeRecord(input({ s: a0, t: undefined, base: undefined }));
    expect(result.writeT).toEqual({ kind: 'upsert', fields: { nr: '1', company: 'Acme', state: 'active', mail: 'x@acme.test' }, create: true });
    expect((result.hashes as NonNullable<MergeInput['base']>).t.name).toBe(fieldHash('Acme'));
  });

  it('propagates a delete, restores or uncouples by the pair policy, and treats delete-and-edit as a conflict', () => {
    const base = synced(a0, b0);
    expect(mergeRecord(input({ s: undefined, t: b0, base }))).toMatchObject({ writeT: { kind: 'delete' }, hashes: 'remove' });
    expect(mergeRecord(input({ pair: { ...pair, deletes: 'restore' }, s: undefined, t: b0, base }))).toMatchObject({ writeS: { kind: 'upsert', create: true } });
    const uncoupled = mergeRecord(input({ pair: { ...pair, deletes: 'uncouple' }, s: undefined, t: b0, base }));
    expect([uncoupled.hashes, uncoupled.writeT, uncoupled.writeS]).toEqual(['remove', undefined, undefined]);
    const b1 = bView({ company: 'Edited', state: 'active', limit: 100 });
    const edited = mergeRecord(input({ s: undefined, t: b1, base }));
    expect(edited.writeS).toEqual({ kind: 'upsert', fields: { no: '1', name: 'Edited', status: 'A', limit: 100 }, create: true });
    expect(edited.decisions).toEqual(['record deleted on side a and changed on side b: the edit wins (newest: an edit outlives a delete)']);
    expect(mergeRecord(input({ pair: { ...pair, conflicts: 'a' }, s: undefined, t: b1, base }))).toMatchObject({ writeT: { kind: 'delete' } });
    expect(mergeRecord(input({ pair: { ...pair, conflicts: 'manual' }, s: undefined, t: b1, base })).parked).toEqual(['(deleted)']);
  });
});
