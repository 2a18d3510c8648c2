import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { startLocalHost, type LocalHost } from '../../../src/host/local-host';
import { readSettings } from '../../../src/platform/settings';
import { pushSignature } from '../../../src/push/push-auth';
import { silentLogger } from '../../../src/telemetry/logger';
import { CRM_SCHEMA, ERP_SCHEMA, SYNC_CONFIG } from '../../support/sync-fixture';

/**
 * The whole local host (HTTP server, processors, schedule) on SQLite tables: a notification posted
 * to `/api/hooks/{job}` the way a sender signs it reaches the target without waiting for a poll.
 */
const SECRET_SETTING = 'HW_E2E_PUSH_SECRET';
const SECRET = 'e2e-secret-7f3a';

describe('push on the local host', () => {
  let dir: string;
  let host: LocalHost;

  beforeAll(async () => {
    process.env[SECRET_SETTING] = SECRET;
    dir = mkdtempSync(path.join(os.tmpdir(), 'hw-push-e2e-'));
    const config = structuredClone(SYNC_CONFIG);
    for (const job of config.jobs as Array<Record<string, unknown>>) {
      // Polled once at start (never run before), then not before next New Year: only pushes move data.
      job.schedule = '0 0 0 1 1 *';
      if (job.name === 'crm-accounts') job.push = { secret: SECRET_SETTING };
    }
    for (const kind of ['connections', 'mappings', 'jobs'] as const) writeFileSync(path.join(dir, `${kind}.yaml`), stringify({ [kind]: config[kind] }));
    new Database(path.join(dir, 'crm.db')).exec(CRM_SCHEMA).close();
    new Database(path.join(dir, 'erp.db')).exec(ERP_SCHEMA).close();
    host = await startLocalHost({
      configDir: dir,
      port: 0,
      log: silentLogger,
      settings: { ...readSettings({}), storageConnectionString: undefined, localTables: 'sqlite', dataDir: path.join(dir, '.data'), getChangesSchedule: '* * * * * *' },
    });
  }, 60_000);

  afterAll(async () => {
    await host?.stop();
    delete process.env[SECRET_SETTING];
    rmSync(dir, { recursive: true, force: true });
  });

  const hook = `/api/hooks/crm-accounts`;
  const send = (body: string, headers: Record<string, string>) => fetch(`${host.url}${hook}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  const customer = (id: string) => {
    const db = new Database(path.join(dir, 'erp.db'), { readonly: true });
    try {
      return db.prepare('SELECT name FROM customers WHERE crm_id = ?').get(id) as { name: string } | undefined;
    } finally {
      db.close();
    }
  };

  it('a signed notification is answered 202 and applied to the target within 2 seconds', async () => {
    const body = JSON.stringify({ sentAt: new Date().toISOString(), changes: [{ record: { id: 'P-1', name: 'Pushed Ltd', city: 'Köln', modified_at: new Date().toISOString() } }] });
    const started = Date.now();
    const response = await send(body, { 'x-highwater-signature': pushSignature(body, SECRET) });
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({ accepted: true, sent: 1 });
    for (;;) {
      if (customer('P-1')) break;
      if (Date.now() - started > 2_000) throw new Error('not applied within 2 s');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(customer('P-1')).toEqual({ name: 'PUSHED LTD' });
  });

  it('refuses a wrong secret (401), a 5 MB body (413) and malformed JSON (400) over HTTP, and answers the contract on GET', async () => {
    const body = JSON.stringify({ sentAt: new Date().toISOString(), changes: [{ record: { id: 'P-2', name: 'No', city: '', modified_at: new Date().toISOString() } }] });
    const wrong = await send(body, { 'x-highwater-key': 'nope' });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: { code: 'Unauthorized', message: "x-highwater-key: does not match the job's push.secret" } });
    const huge = await send('x'.repeat(5 * 1024 * 1024), { 'x-highwater-key': SECRET });
    expect(huge.status).toBe(413);
    const malformed = await send('{', { 'x-highwater-key': SECRET });
    expect(malformed.status).toBe(400);
    expect(customer('P-2')).toBeUndefined();
    const contract = await fetch(`${host.url}${hook}`);
    expect(contract.status).toBe(200);
    expect(await contract.json()).toMatchObject({ job: 'crm-accounts', format: 'generic' });
  });
});
