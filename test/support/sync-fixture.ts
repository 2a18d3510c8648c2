import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { readSettings, type Settings } from '../../src/platform/settings';
import type { ReceivedMessage } from '../../src/bus/message-bus';
import { busSettler } from '../../src/process/bus-settler';
import type { ProcessResult } from '../../src/process/process-queue-message-service';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime/runtime';
import { silentLogger } from '../../src/telemetry/logger';
import { startTestAzurite } from './azurite';

/** A CRM-like and an ERP-like SQLite database, with the config that syncs them. */
export const CRM_SCHEMA = `
  CREATE TABLE accounts (id TEXT PRIMARY KEY, name TEXT, city TEXT, modified_at TEXT NOT NULL, erp_number TEXT);
  CREATE TABLE contacts (id TEXT PRIMARY KEY, account_id TEXT, first_name TEXT, last_name TEXT, modified_at TEXT NOT NULL);
  CREATE TABLE deleted_accounts (id TEXT PRIMARY KEY, deleted_at TEXT NOT NULL);`;

export const ERP_SCHEMA = `
  CREATE TABLE customers (customer_no INTEGER PRIMARY KEY AUTOINCREMENT, crm_id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, city TEXT, modified_at TEXT);
  CREATE TABLE contacts (crm_id TEXT PRIMARY KEY, customer_crm_id TEXT NOT NULL REFERENCES customers(crm_id), full_name TEXT NOT NULL);`;

export const SYNC_CONFIG = {
  connections: [
    { name: 'crm', type: 'sqlite', settings: { file: './crm.db' } },
    { name: 'erp', type: 'sqlite', settings: { file: './erp.db', versionField: 'modified_at' } },
  ],
  mappings: [
    {
      name: 'account-to-customer',
      source: { entity: 'accounts', key: ['id'] },
      target: { entity: 'customers', key: ['crm_id'] },
      fields: [
        { target: 'crm_id', source: 'id' },
        { target: 'name', source: 'name', operations: [{ op: 'upper' }] },
        { target: 'city', source: 'city', operations: [{ op: 'trim' }] },
        { target: 'modified_at', source: 'modified_at' },
      ],
      responseMapping: [{ from: 'customer_no', to: 'erp_number' }],
    },
    {
      name: 'customer-number-to-account',
      source: { entity: 'customers', key: ['crm_id'] },
      target: { entity: 'accounts', key: ['id'] },
      fields: [
        { target: 'id', source: 'crm_id' },
        { target: 'erp_number', source: 'customer_no' },
      ],
    },
    {
      name: 'contact-to-contact',
      source: { entity: 'contacts', key: ['id'] },
      target: { entity: 'contacts', key: ['crm_id'] },
      fields: [
        { target: 'crm_id', source: 'id' },
        { target: 'customer_crm_id', source: 'account_id' },
        { target: 'full_name', source: 'first_name', operations: [{ op: 'concat', fields: ['last_name'], separator: ' ' }] },
      ],
    },
    {
      name: 'deleted-account-to-customer',
      source: { entity: 'deleted_accounts', key: ['id'] },
      target: { entity: 'customers', key: ['crm_id'] },
      fields: [{ target: 'crm_id', source: 'id' }],
    },
  ],
  jobs: [
    {
      name: 'crm-accounts',
      order: 10,
      schedule: '0 */5 * * * *',
      source: 'crm',
      target: 'erp',
      mapping: 'account-to-customer',
      priority: 'high',
      watermark: { type: 'datetime', field: 'modified_at' },
      skipOutdatedMessages: true,
      responseJob: 'erp-numbers',
    },
    {
      name: 'crm-contacts',
      order: 20,
      schedule: '0 */5 * * * *',
      source: 'crm',
      target: 'erp',
      mapping: 'contact-to-contact',
      priority: 'normal',
      watermark: { type: 'datetime', field: 'modified_at' },
    },
    {
      name: 'crm-deleted-accounts',
      order: 30,
      schedule: '0 */5 * * * *',
      source: 'crm',
      target: 'erp',
      mapping: 'deleted-account-to-customer',
      priority: 'low',
      action: 'Delete',
      watermark: { type: 'datetime', field: 'deleted_at' },
    },
    {
      name: 'erp-numbers',
      order: 40,
      schedule: '0 */5 * * * *',
      enabled: false,
      source: 'erp',
      target: 'crm',
      mapping: 'customer-number-to-account',
      priority: 'high',
      watermark: { type: 'datetime', field: 'modified_at' },
    },
  ],
};

export interface SyncFixture {
  dir: string;
  crm: Database.Database;
  erp: Database.Database;
  runtime: Runtime;
  settings: Settings;
  /** Receives and processes everything in the work queues until they are empty, in batches of up to 50. */
  drain(): Promise<ProcessResult[]>;
  close(): Promise<void>;
}

/** A temp folder with config + databases and a runtime on it, on its own in-memory Azurite. */
export async function createSyncFixture(
  options: Partial<RuntimeOptions> = {},
  /** Changes to a copy of {@link SYNC_CONFIG} before it is written. */
  editConfig?: (config: typeof SYNC_CONFIG) => void,
): Promise<SyncFixture> {
  const azurite = await startTestAzurite();
  const storageConnectionString = azurite.connectionString;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hw-sync-'));
  const config = structuredClone(SYNC_CONFIG);
  editConfig?.(config);
  for (const kind of ['connections', 'mappings', 'jobs'] as const) {
    writeFileSync(path.join(dir, `${kind}.yaml`), stringify({ [kind]: config[kind] }));
  }
  const crm = new Database(path.join(dir, 'crm.db'));
  crm.exec(CRM_SCHEMA);
  const erp = new Database(path.join(dir, 'erp.db'));
  erp.exec(ERP_SCHEMA);
  const settings: Settings = {
    ...readSettings({}),
    storageConnectionString,
    dataDir: path.join(dir, 'data'),
    // Unique queue names are not needed: each fixture has its own bus file.
  };
  const runtime = await createRuntime({ settings, configDir: dir, log: silentLogger, lockRenewalMs: 30_000, ...options });
  const drain = async () => {
    const results: ProcessResult[] = [];
    for (;;) {
      let got = 0;
      for (const queue of Object.values(settings.queues.work)) {
        const messages: ReceivedMessage[] = await runtime.bus.receive(queue, { maxMessages: 50 });
        got += messages.length;
        if (messages.length === 0) continue;
        const items = messages.map((message) => ({ message, settler: busSettler(runtime.bus, message) }));
        results.push(...(await runtime.processor.executeBatch(items, queue, { completeMany: (some) => runtime.bus.completeMany(some.map((i) => i.message as ReceivedMessage)) })));
      }
      if (got === 0) return results;
    }
  };
  return {
    dir,
    crm,
    erp,
    runtime,
    settings,
    drain,
    async close() {
      await runtime.close();
      crm.close();
      erp.close();
      await azurite.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
