import { capabilityIt } from './capability-it';
import type { Capability, ContractContext, PreparedTarget, PreparedValueTarget, Scenario, TargetHarness } from './target-connector/context';
import { deleteAndResponseCases } from './target-connector/delete-and-response.cases';
import { groupAndVersionCases } from './target-connector/group-and-version.cases';
import { itemOutcomeCases } from './target-connector/item-outcomes.cases';
import { schemaMismatchCases } from './target-connector/schema-mismatch.cases';
import { valueCases } from './target-connector/values.cases';

export type { TargetHarness } from './target-connector/context';

export interface TargetContractOptions {
  /**
   * What the system cannot express, with the reason: the cases that need it are skipped and the
   * reason is printed (e.g. `{ parent: 'no foreign keys in OData on CAP' }`). Default: none.
   */
  unsupported?: Partial<Record<Capability, string>>;
  /** Per-case timeout in ms. Default: jest's. */
  timeoutMs?: number;
}

/**
 * The target connector contract: `applyBatch` of every target gives one outcome per item in
 * order, fails a data error alone and classified (permanent, transitive), rejects a group that
 * failed as a whole, checks versions inside the write, deletes (a missing record is a success),
 * returns response fields per item, and writes values exactly or fails the item, naming the
 * column; a missing table, entity set, column or property fails the whole group with a
 * ConfigError (the processor pauses the target), never an item error. `makeHarness` runs once
 * per suite; each case asks it for a fresh entity holding the case's records.
 *
 * @example
 *   runTargetConnectorContract('SqlTarget on SQLite', async () => sqlHarness('sqlite'), { unsupported: {} });
 */
export function runTargetConnectorContract(name: string, makeHarness: () => Promise<TargetHarness>, options: TargetContractOptions = {}): void {
  let harness: TargetHarness | undefined;
  const unsupported = options.unsupported ?? {};
  const ctx: ContractContext = {
    caseIt: capabilityIt(`Target contract ${name}`, unsupported, options.timeoutMs),
    prepare: (scenario: Scenario): Promise<PreparedTarget> => {
      if (!harness) throw new Error(`${name}: the contract harness is not ready (did beforeAll fail?)`);
      return harness.prepare(scenario);
    },
    prepareValues: (): Promise<PreparedValueTarget> => {
      if (!harness?.prepareValues) throw new Error(`${name}: the harness has no value matrix: implement prepareValues or declare exactValues unsupported`);
      return harness.prepareValues();
    },
  };

  describe(`Target connector contract: ${name}`, () => {
    beforeAll(async () => {
      harness = await makeHarness();
    }, 60_000);
    afterAll(async () => {
      await harness?.close();
    });

    describe('per-item outcomes and error classification', () => itemOutcomeCases(ctx));
    describe('whole-group failure and the version condition', () => groupAndVersionCases(ctx));
    describe('deletes and response fields', () => deleteAndResponseCases(ctx));
    describe('schema mismatches pause the target', () => schemaMismatchCases(ctx));
    describe('exact values', () => valueCases(ctx));
  });
}
