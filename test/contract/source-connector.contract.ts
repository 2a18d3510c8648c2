import { capabilityIt } from './capability-it';
import { continuationCases } from './source-connector/continuation.cases';
import type { Capability, ContractContext, PreparedSource, PreparedValues, SourceHarness, SourceScenario } from './source-connector/context';
import { deletesAndTimestampCases } from './source-connector/deletes-and-timestamps.cases';
import { readByKeysCases } from './source-connector/read-by-keys.cases';
import { readingCases } from './source-connector/reading.cases';
import { valueCases } from './source-connector/values.cases';
import { watermarkCases } from './source-connector/watermark.cases';

export type { SourceHarness } from './source-connector/context';

export interface SourceContractOptions {
  /**
   * What the system cannot express, with the reason: the cases that need it are skipped and the
   * reason is printed (e.g. `{ timeStamps: 'a watermark read cannot tell a timestamp-only change' }`).
   * Default: none.
   */
  unsupported?: Partial<Record<Capability, string>>;
  /** Per-case timeout in ms. Default: jest's. */
  timeoutMs?: number;
}

/**
 * The source connector contract: `retrieveChanges` of every source gives each change after the
 * watermark (reaching back `lookbackSeconds`) that the job filter keeps once, in change-tracker
 * order, in pages of `pageSize` with the right `rowCount` / `hasMore` / `lastChangeTracker`,
 * serialized by the mapping; a page's cursor continues the run after it; an early stop holds
 * nothing; removed records become `Delete` messages and timestamp-only changes are reported
 * where the system can tell them; values travel exactly (64-bit integers, decimals, bytes, instants, JSON);
 * `readByKeys`, where the source has it, reads each record as detection sends it. `makeHarness` runs once per suite; each case asks it for a
 * fresh entity holding the case's records.
 *
 * @example
 *   runSourceConnectorContract('SqlSource on SQLite', () => sqlSourceHarness('sqlite'), { unsupported: { timeStamps: '…' } });
 */
export function runSourceConnectorContract(name: string, makeHarness: () => Promise<SourceHarness>, options: SourceContractOptions = {}): void {
  let harness: SourceHarness | undefined;
  const unsupported = options.unsupported ?? {};
  const ctx: ContractContext = {
    caseIt: capabilityIt(`Source contract ${name}`, unsupported, options.timeoutMs),
    prepare: (scenario: SourceScenario): Promise<PreparedSource> => {
      if (!harness) throw new Error(`${name}: the contract harness is not ready (did beforeAll fail?)`);
      return harness.prepare(scenario);
    },
    prepareValues: (id = 'values'): Promise<PreparedValues> => {
      if (!harness?.prepareValues) throw new Error(`${name}: the harness has no value matrix: implement prepareValues or declare exactValues unsupported`);
      return harness.prepareValues(id);
    },
  };

  describe(`Source connector contract: ${name}`, () => {
    beforeAll(async () => {
      harness = await makeHarness();
    }, 60_000);
    afterAll(async () => {
      await harness?.close();
    });

    describe('reading: order, pages, serialized messages', () => readingCases(ctx));
    describe('the watermark, the lookback and the job filter', () => watermarkCases(ctx));
    describe('cursors and stopping early', () => continuationCases(ctx));
    describe('deletes and timestamp-only changes', () => deletesAndTimestampCases(ctx));
    describe('exact values', () => valueCases(ctx));
    describe('reading by key (two-way sync)', () => readByKeysCases(ctx));
  });
}
