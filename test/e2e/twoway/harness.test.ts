import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SeededRandom } from '../convergence/support/seeded-random';
import type { SoakPolicy } from './support/pair-config';
import { PairOracle, type RoundPlan, type Step } from './support/pair-plan';
import { PG_URL_SETTING } from './support/pair-rig';
import { PostgresSide, SIDE_A, SIDE_B, SqliteSide, type AccountValues, type SideDb, type SideRow } from './support/pair-sides';
import { comparePairs } from './support/pair-verify';

/**
 * The two-way soak's own pieces, checked without a host: the oracle keeps to the rules that make
 * it exact, the verdict tells diverged from wrong, and the sides stamp every write by trigger.
 */

function planRounds(policy: SoakPolicy, seed: number, rounds = 6): { oracle: PairOracle; plans: RoundPlan[] } {
  const random = new SeededRandom(seed);
  const oracle = new PairOracle(policy);
  const preload: RoundPlan = { groups: [], conflicts: 0, deleteConflicts: 0, resolutions: [] };
  for (let i = 0; i < 8; i++) for (const side of ['a', 'b'] as const) oracle.planCreate(random, preload, side);
  const plans = [preload];
  for (let r = 0; r < rounds; r++) plans.push(oracle.planRound(random.fork(), { creates: 3, edits: 8 }));
  return { oracle, plans };
}

describe('two-way soak oracle', () => {
  it.each(['a', 'b', 'manual'] as const)('plans the same rounds from the same seed (policy %s)', (policy) => {
    expect(JSON.stringify(planRounds(policy, 42).plans)).toBe(JSON.stringify(planRounds(policy, 42).plans));
    expect(JSON.stringify(planRounds(policy, 42).plans)).not.toBe(JSON.stringify(planRounds(policy, 43).plans));
  });

  it.each(['a', 'b', 'manual'] as const)('keeps to the rules that make the expectation exact (policy %s)', (policy) => {
    for (let seed = 1; seed <= 30; seed++) {
      const { plans } = planRounds(policy, seed);
      for (const plan of plans.slice(1)) {
        expect(plan.conflicts).toBeGreaterThan(0);
        if (policy === 'manual') expect(plan.resolutions.length).toBeGreaterThan(0);
        else expect(plan.deleteConflicts).toBeGreaterThan(0);
        const edited = new Set<string>();
        const deletedIn = new Set(plan.groups.flat().filter((s) => s.kind === 'delete').map((s) => s.key));
        const newIn = new Set(plan.groups.flat().filter((s) => s.kind === 'insert').map((s) => s.key));
        for (const group of plan.groups) {
          expect(group.length).toBeLessThanOrEqual(2);
          if (group.length === 2) expect(new Set(group.map((s) => s.side)).size).toBe(2);
          const deleteConflict = group.length === 2 && group.some((s) => s.kind === 'delete');
          for (const step of group) {
            if (step.kind === 'insert') continue;
            // A record created in a round is not edited or deleted in it.
            expect(newIn.has(step.key)).toBe(false);
            if (step.kind !== 'update') continue;
            const id = `${step.key}/${step.field}/${step.side}`;
            expect(edited.has(id)).toBe(false);
            edited.add(id);
            if (step.field === 'credit_limit') expect(step.side).toBe('b');
            if (deletedIn.has(step.key)) expect(deleteConflict).toBe(true);
          }
        }
      }
    }
  });

  it('expects the policy side of a field conflict, the winner of a delete-vs-edit conflict, the resolved side under manual', () => {
    for (const policy of ['a', 'b', 'manual'] as const) {
      const { oracle, plans } = planRounds(policy, 7, 1);
      const round = plans[1];
      const final = oracle.expected;
      for (const group of round.groups.filter((g) => g.length === 2)) {
        const update = (side: 'a' | 'b') => group.find((s): s is Extract<Step, { kind: 'update' }> => s.kind === 'update' && s.side === side);
        const removal = group.find((s) => s.kind === 'delete');
        const key = group[0].key;
        if (removal) {
          expect(final.get(key)?.deleted).toBe(removal.side === policy);
          continue;
        }
        const take = policy === 'manual' ? round.resolutions.find((r) => r.key === key)?.take : policy;
        expect(take).toBeDefined();
        const winner = update(take!)!;
        expect(final.get(key)?.values[winner.field]).toEqual(winner.value);
      }
    }
  });
});

it.each(['a', 'b'] as const)('without restores, every delete-vs-edit conflict deletes on the winning side (policy %s)', (policy) => {
  for (let seed = 1; seed <= 20; seed++) {
    const random = new SeededRandom(seed);
    const oracle = new PairOracle(policy, false);
    const preload: RoundPlan = { groups: [], conflicts: 0, deleteConflicts: 0, resolutions: [] };
    for (let i = 0; i < 8; i++) for (const side of ['a', 'b'] as const) oracle.planCreate(random, preload, side);
    const plan = oracle.planRound(random.fork(), { creates: 3, edits: 8 });
    const deletes = plan.groups.filter((g) => g.length === 2).flat().filter((s) => s.kind === 'delete');
    expect(deletes.length).toBe(plan.deleteConflicts);
    for (const d of deletes) {
      expect(d.side).toBe(policy);
      expect(oracle.expected.get(d.key)?.deleted).toBe(true);
    }
  }
});

describe('two-way soak verdict', () => {
  const values: AccountValues = { name: 'Acme 1', email: 'x@example.com', phone: null, credit_limit: 1200.5, status: 'A' };
  const row = (v: Partial<AccountValues> = {}, deleted = false): SideRow => ({ deleted, values: { ...values, ...v }, stamp: 'now' });

  it('finds nothing when both sides hold what is expected (a deleted record may be gone or soft-deleted)', () => {
    const expected = new Map([['K1', { deleted: false, values }], ['K2', { deleted: true, values }]]);
    expect(comparePairs(expected, new Map([['K1', row()], ['K2', row({}, true)]]), new Map([['K1', row({ credit_limit: 1200.5 })]]))).toEqual([]);
  });

  it('tells sides that differ from sides that agree on a wrong value, and reports records nobody created', () => {
    const expected = new Map([['K1', { deleted: false, values }], ['K2', { deleted: false, values }], ['K3', { deleted: true, values }]]);
    const a = new Map([['K1', row({ name: 'other' })], ['K2', row({ phone: 'p' })], ['K3', row()], ['X', row()]]);
    const b = new Map([['K1', row()], ['K2', row({ phone: 'p' })], ['K3', row({}, true)]]);
    const found = comparePairs(expected, a, b).map((m) => `${m.key} ${m.field} ${m.kind}`);
    expect(found.sort()).toEqual(['K1 name diverged', 'K2 phone wrong', 'K3 (record) diverged', 'X (record) unexpected']);
  });
});

describe.each([
  ['SQLite', true],
  ['PostgreSQL', process.env[PG_URL_SETTING] !== undefined],
] as const)('two-way soak side on %s', (kind, available) => {
  let dir: string;
  let side: SideDb;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-twoway-side-'));
    if (!available) return;
    side = kind === 'SQLite' ? new SqliteSide('b', SIDE_B, path.join(dir, 'b.db')) : await PostgresSide.create('b', SIDE_B, process.env[PG_URL_SETTING] as string, `hw_twoway_side_${process.pid}`);
  });
  afterEach(async () => {
    if (available) await side.close();
    rmSync(dir, { recursive: true, force: true });
  });

  (available ? it : it.skip)('stamps inserts, updates and soft deletes by trigger, and reads back in side a notation', async () => {
    const values: AccountValues = { name: 'Acme', email: 'a@example.com', phone: null, credit_limit: 1234.5, status: 'I' };
    await side.insert('K1', values);
    const first = (await side.readAll()).get('K1')!;
    expect(first).toMatchObject({ deleted: false, values });
    expect(first.stamp).not.toBe('null');
    await new Promise((resolve) => setTimeout(resolve, 5));
    await side.update('K1', 'status', 'A');
    const second = (await side.readAll()).get('K1')!;
    expect(second.values.status).toBe('A');
    expect(second.stamp > first.stamp).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await side.softDelete('K1');
    const third = (await side.readAll()).get('K1')!;
    expect(third.deleted).toBe(true);
    expect(third.stamp > second.stamp).toBe(true);
  });

  (kind === 'SQLite' ? it : it.skip)('stamps a write made as Highwater makes it (an upsert) too: it comes back as an echo', async () => {
    await side.insert('K1', { name: 'Acme', email: null, phone: null, credit_limit: null, status: 'A' });
    const before = (await side.readAll()).get('K1')!.stamp;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const db = new Database(path.join(dir, 'b.db'));
    try {
      db.prepare('INSERT INTO customers (customer_no, company) VALUES (?, ?) ON CONFLICT (customer_no) DO UPDATE SET company = excluded.company').run('K1', 'Acme 2');
    } finally {
      db.close();
    }
    const after = (await side.readAll()).get('K1')!;
    expect(after.values.name).toBe('Acme 2');
    expect(after.stamp > before).toBe(true);
    expect(after.stamp).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/);
  });
});

// Side a is the same class with other names.
it('side a and side b differ in names and status codes only', () => {
  expect(Object.keys(SIDE_A.columns)).toEqual(Object.keys(SIDE_B.columns));
  expect(SIDE_B.status).toEqual({ A: 'active', I: 'inactive' });
});
