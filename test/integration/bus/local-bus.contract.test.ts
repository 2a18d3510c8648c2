import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalBus } from '../../../src/bus/local/local-bus';
import type { LocalBusOptions } from '../../../src/bus/local/options';
import { runMessageBusContract } from '../../contract/message-bus.contract';
import { FakeClock } from '../../support/fake-clock';

/**
 * The contract on a SQLite file, with each durability: waiting for WAL syncs (`'FULL'`, real
 * fdatasyncs) must change no semantics.
 */
for (const synchronous of ['NORMAL', 'FULL'] satisfies Array<LocalBusOptions['synchronous']>) {
  runMessageBusContract(`LocalBus (SQLite file, synchronous '${synchronous}')`, async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), `highwater-bus-contract-${synchronous.toLowerCase()}-`));
    const clock = new FakeClock('2026-03-01T00:00:00Z');
    const bus = await LocalBus.open({ dataDir, clock, pollIntervalMs: 20, synchronous });
    let created = 0;
    return {
      bus,
      clock,
      queue: async (suffix, options) => {
        const name = `contract-${++created}-${suffix}`;
        await bus.createQueue(name, options);
        return name;
      },
      cleanup: async () => {
        await bus.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  });
}
