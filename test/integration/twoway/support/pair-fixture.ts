import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import type { RuntimeOptions } from '../../../../src/runtime/runtime';
import { createSyncFixture, type SyncFixture } from '../../../support/sync-fixture';

/** Stamps ten seconds in the past, so that runs need not wait for the settle horizon. */
export const PAST_STAMP = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-10 seconds')`;

/**
 * The sync fixture (a CRM and an ERP SQLite database, runtime on Azurite) with one pair: its
 * `pairs.yaml` written and the two sides' tables created before the configuration loads.
 */
export async function createPairFixture(pair: { name: string }, schemas: { crm: string; erp: string }, options: Partial<RuntimeOptions> = {}): Promise<SyncFixture> {
  const f = await createSyncFixture(options);
  writeFileSync(path.join(f.dir, 'pairs.yaml'), stringify({ pairs: [pair] }));
  f.crm.exec(schemas.crm);
  f.erp.exec(schemas.erp);
  await f.runtime.init.ensureInitialized();
  return f;
}

/** Runs both directions of `pair` once, each followed by processing what it sent; the messages sent per direction. */
export async function syncPair(f: SyncFixture, pair: string): Promise<{ aToB: number; bToA: number }> {
  const sent: number[] = [];
  for (const name of [`${pair}.a-to-b`, `${pair}.b-to-a`]) {
    const run = await f.runtime.detection.runJob(f.runtime.init.getJob(name));
    sent.push(Object.values(run.sentByQueue ?? {}).reduce((sum, n) => sum + n, 0));
    await f.drain();
  }
  return { aToB: sent[0], bToA: sent[1] };
}
