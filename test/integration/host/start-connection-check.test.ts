import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { startLocalHost } from '../../../src/host/local-host';
import { readSettings } from '../../../src/platform/settings';
import type { Logger } from '../../../src/telemetry/logger';
import { writeConfigDir } from '../config/config-fixture';

/**
 * The local host runs `highwater check`'s checks when it starts and logs what they found as
 * warnings; it starts all the same (SQLite tables, no Azurite).
 */
describe('the local host checks its connections at start', () => {
  let root: string;
  let configDir: string;

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-start-check-'));
    const db = new Database(path.join(root, 'crm.db'));
    db.exec('CREATE TABLE accounts (id TEXT PRIMARY KEY, name TEXT, modified TEXT)');
    db.close();
    configDir = writeConfigDir({
      connections: [
        { name: 'crm', type: 'sqlite', settings: { file: path.join(root, 'crm.db') } },
        { name: 'erp', type: 'postgres', settings: { host: '127.0.0.1', database: 'erp', user: 'sync' }, secrets: { password: 'HW_START_CHECK_UNSET' } },
      ],
      mappings: [{ name: 'm', source: { entity: 'accounts', key: ['id'] }, target: { entity: 'customers', key: ['id'] }, fields: [{ target: 'id', source: 'id' }, { target: 'name', source: 'nmae' }] }],
      jobs: [{ name: 'j', schedule: '0 0 0 1 1 *', source: 'crm', target: 'erp', mapping: 'm', watermark: { type: 'datetime', field: 'changed' } }],
    });
  });
  afterAll(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(configDir, { recursive: true, force: true });
  });

  it('logs each problem as a warning, and still starts', async () => {
    const lines: string[] = [];
    const log: Logger = { info: (m: string) => void lines.push(`info: ${m}`), warn: (m: string) => void lines.push(`warn: ${m}`), error: (m: string) => void lines.push(`error: ${m}`) } as Logger;
    const settings = { ...readSettings({}), storageConnectionString: undefined, localTables: 'sqlite', dataDir: path.join(root, 'data') };
    const host = await startLocalHost({ configDir, port: 0, settings, log, noSchedule: true, processing: 'inline' });
    try {
      const deadline = Date.now() + 20_000;
      while (!lines.some((l) => l.includes('problems found')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(lines.filter((l) => l.includes('check: '))).toEqual([
        'info: check: postgres connection "erp": not opened (a secret is missing); what its jobs name there is not checked',
        'warn: check: connections.yaml: connections[1].secrets.password (connection "erp"): names app setting HW_START_CHECK_UNSET, which is not set',
        'warn: check: mappings.yaml: mappings[0].fields[1].source (mapping "m"): column "nmae" not found in table "accounts" (sqlite connection "crm")',
        'warn: check: jobs.yaml: jobs[0].watermark.field (job "j"): column "changed" not found in table "accounts" (sqlite connection "crm")',
        'warn: check: 3 problems found (the host runs on; `highwater check` shows them again)',
      ]);
      expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await host.stop();
    }
  });
});
