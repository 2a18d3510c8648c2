import type { SeededRandom } from '../../convergence/support/seeded-random';
import type { SoakPolicy } from './pair-config';
import type { AccountField, AccountValues, SideName } from './pair-sides';

/**
 * One round of the two-way workload, planned before it runs, and the oracle: what every record
 * must hold once the round has synced. The rules keep the oracle exact:
 *
 * - within a round a (record, field) is edited at most once per side;
 * - a record created in a round is not edited in it; a record deleted in a round is not edited
 *   in it, except in a designated delete-vs-edit conflict (policies `a` and `b` only);
 * - a conflict's two edits run back to back, well within the jobs' settle margin (1 s), so that
 *   neither side's edit has synced before the other is made: both count as changed since the
 *   last sync, which is what makes it a conflict;
 * - credit limits are edited on side b only (they flow to a only: the ERP is the authority), and
 *   a record created on side a has none (side b's null is what it gets);
 * - a status has two values: it is never a conflict field (both sides would flip it to the same).
 *
 * Expected: a field edited on one side → that value; on both → the policy's side; under `manual`
 * → the side the harness resolves it to (`take`, alternating). A delete-vs-edit conflict → the
 * winning side's state (deleted, or the edited record).
 */

/** What the oracle expects of a record after the round. */
export interface ExpectedRecord {
  deleted: boolean;
  values: AccountValues;
}

export type Step =
  | { kind: 'insert'; side: SideName; key: string; values: AccountValues }
  | { kind: 'update'; side: SideName; key: string; field: AccountField; value: AccountValues[AccountField] }
  | { kind: 'delete'; side: SideName; key: string };

/** Steps that run back to back (one step, or a conflict's two). */
type StepGroup = Step[];

/** A record whose conflicting edits `manual` parks: the harness resolves it to `take`. */
interface ManualResolution {
  key: string;
  take: SideName;
  fields: AccountField[];
}

export interface RoundPlan {
  groups: StepGroup[];
  /** Field conflicts (a record and field edited on both sides). */
  conflicts: number;
  /** Delete-vs-edit conflicts. */
  deleteConflicts: number;
  /** `manual` only: the records to resolve, and how. */
  resolutions: ManualResolution[];
}

/** Fields that flow both ways and have more than two values: where field conflicts are made. */
const CONFLICT_FIELDS: readonly AccountField[] = ['name', 'email', 'phone'];
const WORDS = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Straße', 'Øresund', 'Éclair', 'Vandelay', 'Wonka'];

export class PairOracle {
  /** Every record ever created, by key (the same on both sides). */
  readonly expected = new Map<string, ExpectedRecord>();
  private created = { a: 0, b: 0 };
  private nextTake: SideName = 'a';

  constructor(
    private readonly policy: SoakPolicy,
    /**
     * Whether delete-vs-edit conflicts may be won by the edit (which restores the record on the
     * side that deleted it). False: the delete is always on the policy's side, so the delete wins.
     * Default true; false only to measure the rest while a restore onto a soft-deleted row fails.
     */
    private readonly restores = true,
  ) {}

  /** Plans a round from `random` and records its outcome as expected. */
  planRound(random: SeededRandom, size: { creates: number; edits: number }): RoundPlan {
    const plan: RoundPlan = { groups: [], conflicts: 0, deleteConflicts: 0, resolutions: [] };
    const live = [...this.expected].filter(([, r]) => !r.deleted).map(([key]) => key);
    const touched = random.sample(live, size.edits);
    touched.forEach((key, i) => {
      const roll = random.next();
      // Every round has a field conflict and (policies a and b) a delete-vs-edit conflict.
      if (i === 0) this.planEdits(random, plan, key, true);
      else if (i === 1 && this.policy !== 'manual') this.planDeleteConflict(random, plan, key);
      else if (roll < 0.15) this.planDelete(random, plan, key);
      else if (roll < 0.25 && this.policy !== 'manual') this.planDeleteConflict(random, plan, key);
      else this.planEdits(random, plan, key);
    });
    for (const side of ['a', 'b'] as const) {
      for (let i = random.int(0, size.creates); i > 0; i--) this.planCreate(random, plan, side);
    }
    // Shuffle the groups (Fisher–Yates with the seeded generator).
    for (let i = plan.groups.length - 1; i > 0; i--) {
      const j = random.int(0, i);
      [plan.groups[i], plan.groups[j]] = [plan.groups[j], plan.groups[i]];
    }
    return plan;
  }

  /** A record, created on `side` with every field set. */
  planCreate(random: SeededRandom, plan: RoundPlan, side: SideName): void {
    const key = `${side.toUpperCase()}-${String(++this.created[side]).padStart(5, '0')}`;
    const values: AccountValues = {
      name: this.value(random, 'name') as string,
      email: this.value(random, 'email') as string,
      phone: this.value(random, 'phone') as string | null,
      credit_limit: side === 'b' ? (this.value(random, 'credit_limit') as number) : null,
      status: random.chance(0.8) ? 'A' : 'I',
    };
    plan.groups.push([{ kind: 'insert', side, key, values }]);
    this.expected.set(key, { deleted: false, values: { ...values } });
  }

  private planDelete(random: SeededRandom, plan: RoundPlan, key: string): void {
    plan.groups.push([{ kind: 'delete', side: random.chance(0.5) ? 'a' : 'b', key }]);
    this.record(key).deleted = true;
  }

  /** Deleted on one side, a field edited on the other: the policy's side wins the record. */
  private planDeleteConflict(random: SeededRandom, plan: RoundPlan, key: string): void {
    const drawn: SideName = random.chance(0.5) ? 'a' : 'b';
    const deletedOn: SideName = this.restores || this.policy === 'manual' ? drawn : this.policy;
    const editedOn: SideName = deletedOn === 'a' ? 'b' : 'a';
    const field = random.pick(CONFLICT_FIELDS);
    // Never null: clearing a field that is already empty would be no edit at all.
    const value = this.value(random, field, true);
    const steps: Step[] = [{ kind: 'delete', side: deletedOn, key }, { kind: 'update', side: editedOn, key, field, value }];
    plan.groups.push(random.chance(0.5) ? steps : steps.reverse());
    plan.deleteConflicts++;
    const record = this.record(key);
    if (this.policy === deletedOn) record.deleted = true;
    else record.values = { ...record.values, [field]: value };
  }

  /** One to three fields of a record, each on side a, side b, or both (a conflict; `conflict`: the first field is one). */
  private planEdits(random: SeededRandom, plan: RoundPlan, key: string, conflict = false): void {
    const record = this.record(key);
    const others = random.sample(['name', 'email', 'phone', 'credit_limit', 'status'] as const, random.int(1, 3));
    const first = random.pick(CONFLICT_FIELDS);
    const fields = conflict ? [first, ...others.filter((f) => f !== first)] : others;
    const manualFields: AccountField[] = [];
    const take = this.nextTake;
    for (const [i, field] of fields.entries()) {
      const both = (conflict && i === 0) || (CONFLICT_FIELDS.includes(field) && random.chance(0.3));
      if (both) {
        const a = this.value(random, field, true);
        const b = this.value(random, field, true);
        const steps: Step[] = [{ kind: 'update', side: 'a', key, field, value: a }, { kind: 'update', side: 'b', key, field, value: b }];
        plan.groups.push(random.chance(0.5) ? steps : steps.reverse());
        plan.conflicts++;
        const winner = this.policy === 'manual' ? take : this.policy;
        if (this.policy === 'manual') manualFields.push(field);
        record.values = { ...record.values, [field]: winner === 'a' ? a : b };
        continue;
      }
      const side: SideName = field === 'credit_limit' ? 'b' : random.chance(0.5) ? 'a' : 'b';
      // A value that differs from the current one (an empty field is never cleared again).
      const value = field === 'status' ? (record.values.status === 'A' ? 'I' : 'A') : this.value(random, field, record.values[field] === null);
      plan.groups.push([{ kind: 'update', side, key, field, value }]);
      record.values = { ...record.values, [field]: value };
    }
    if (manualFields.length > 0) {
      plan.resolutions.push({ key, take, fields: manualFields });
      this.nextTake = take === 'a' ? 'b' : 'a';
    }
  }

  private record(key: string): ExpectedRecord {
    const record = this.expected.get(key);
    if (!record) throw new Error(`no record ${key}`);
    return record;
  }

  /** A fresh value of `field`; `present`: never null (a conflict's two values must differ). */
  private value(random: SeededRandom, field: AccountField, present = false): AccountValues[AccountField] {
    const n = random.int(1, 999_999);
    switch (field) {
      case 'name':
        return `${random.pick(WORDS)} ${n}`;
      case 'email':
        return `buyer${n}@example.com`;
      case 'phone':
        // Sometimes cleared: a null has to travel too.
        return !present && random.chance(0.1) ? null : `+49 30 ${n}`;
      case 'credit_limit':
        return random.int(0, 5_000_000) / 100;
      case 'status':
        return random.chance(0.5) ? 'A' : 'I';
    }
  }
}

/** Edits a round counts (a conflict is two: one per side). */
export function editsOf(plan: RoundPlan): number {
  return plan.groups.reduce((n, g) => n + g.length, 0);
}
