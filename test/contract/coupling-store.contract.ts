import type { ContractContext, OpenedCouplingStore } from './coupling-store/context';
import { conflictCases } from './coupling-store/conflicts.cases';
import { couplingCases } from './coupling-store/couplings.cases';
import { keyCases } from './coupling-store/keys.cases';
import { versionCases } from './coupling-store/versions.cases';

export type { OpenedCouplingStore } from './coupling-store/context';

/**
 * The coupling store's contract (`src/twoway/coupling-store.ts`): a coupling is found by either
 * of its keys, many at once, and listed by its a key; a write succeeds only on the version read
 * (or, without one, only for a new coupling) and of concurrent writers exactly one wins; a
 * changed b key and a removal take the old lookup with them, and a lookup a crash left behind
 * finds nothing; keys may hold any character; a record's parked conflict is kept, replaced,
 * listed and removed. `open` runs once per suite; each case uses pair names of its own.
 *
 * @example
 *   runCouplingStoreContract('TableCouplingStore on SQLite', async () => ({ store, storage, close }));
 */
export function runCouplingStoreContract(name: string, open: () => Promise<OpenedCouplingStore>): void {
  let opened: OpenedCouplingStore | undefined;
  const ctx: ContractContext = {
    opened: () => {
      if (!opened) throw new Error(`${name}: the contract harness is not ready (did beforeAll fail?)`);
      return opened;
    },
  };

  describe(`Coupling store contract: ${name}`, () => {
    beforeAll(async () => {
      opened = await open();
    }, 60_000);
    afterAll(async () => {
      await opened?.close();
    });

    describe('couplings: by either key, many, a changed b key, removal, the list', () => couplingCases(ctx));
    describe('versions: stale writes fail, one of concurrent writers wins, crash leftovers are ignored', () => versionCases(ctx));
    describe('keys of any characters and length', () => keyCases(ctx));
    describe('parked conflicts', () => conflictCases(ctx));
  });
}
