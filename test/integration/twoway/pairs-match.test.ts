import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { runCli } from '../../../src/cli/main';
import type { Job } from '../../../src/model/job';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/**
 * `highwater pairs match` before a pair's first sync: the same companies exist on both SQLite
 * sides under different keys (CRM account A-1 is ERP client C-77), one CRM company has no
 * counterpart, and two CRM companies share the e-mail of one ERP client (ambiguous). The command
 * runs through the CLI against the fixture's Azurite and local bus; the sync through the runtime,
 * as two-way-sync.test.ts runs it. Rows are stamped by trigger ten seconds in the past.
 */
const STAMP = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-10 seconds')`;
const CRM = `
  CREATE TABLE companies (account_id TEXT PRIMARY KEY, name TEXT, email TEXT, phone TEXT, modified_at TEXT NOT NULL DEFAULT (${STAMP}));
  CREATE TRIGGER companies_stamp AFTER UPDATE ON companies WHEN NEW.modified_at = OLD.modified_at
    BEGIN UPDATE companies SET modified_at = ${STAMP} WHERE account_id = NEW.account_id; END;`;
const ERP = `
  CREATE TABLE clients (client_no TEXT PRIMARY KEY, company_name TEXT, mail TEXT, telephone TEXT, changed_at TEXT NOT NULL DEFAULT (${STAMP}));
  CREATE TRIGGER clients_stamp AFTER UPDATE ON clients WHEN NEW.changed_at = OLD.changed_at
    BEGIN UPDATE clients SET changed_at = ${STAMP} WHERE client_no = NEW.client_no; END;`;

const SIDES = {
  a: { connection: 'crm', entity: 'companies', key: ['account_id'], watermark: { type: 'datetime', field: 'modified_at' } },
  b: { connection: 'erp', entity: 'clients', key: ['client_no'], watermark: { type: 'datetime', field: 'changed_at' } },
};
const FIELDS = [
  { a: 'account_id', b: 'client_no' },
  { a: 'name', b: 'company_name' },
  { a: 'email', b: 'mail' },
  { a: 'phone', b: 'telephone', conflict: 'b' },
];
const PAIRS = [
  { name: 'companies', schedule: '0 */5 * * * *', ...SIDES, fields: FIELDS, conflicts: 'a', match: [{ a: 'email', b: 'mail', ignoreCase: true }] },
  { name: 'plain', schedule: '0 */5 * * * *', ...SIDES, fields: FIELDS, conflicts: 'a' },
  { name: 'broken', schedule: '0 */5 * * * *', ...SIDES, b: { ...SIDES.b, entity: 'no_such_table' }, fields: FIELDS, conflicts: 'a', match: [{ a: 'email', b: 'mail' }] },
];

const SAVED = { ...process.env };

describe('highwater pairs match (SQLite ↔ SQLite, couplings on Azurite)', () => {
  let f: SyncFixture;
  let out: string[];
  let err: string[];
  const job = (name: string): Job => f.runtime.init.getJob(name);
  const sync = async () => {
    const aToB = await f.runtime.detection.runJob(job('companies.a-to-b'));
    await f.drain();
    const bToA = await f.runtime.detection.runJob(job('companies.b-to-a'));
    await f.drain();
    const sent = (run: typeof aToB) => Object.values(run.sentByQueue ?? {}).reduce((sum, n) => sum + n, 0);
    return { aToB: sent(aToB), bToA: sent(bToA) };
  };
  const cli = (...args: string[]) => runCli([...args, '--config', f.dir]);
  const crmRows = () => f.crm.prepare('SELECT account_id, name, email, phone FROM companies ORDER BY account_id').all() as Array<Record<string, unknown>>;
  const erpRows = () => f.erp.prepare('SELECT client_no, company_name, mail, telephone FROM clients ORDER BY client_no').all() as Array<Record<string, unknown>>;

  beforeAll(async () => {
    f = await createSyncFixture();
    writeFileSync(path.join(f.dir, 'pairs.yaml'), stringify({ pairs: PAIRS }));
    f.crm.exec(CRM);
    f.erp.exec(ERP);
    const crm = f.crm.prepare('INSERT INTO companies (account_id, name, email, phone) VALUES (?, ?, ?, ?)');
    crm.run('A-1', 'Acme', 'Info@Acme.test', '+49 1');
    crm.run('A-2', 'Beta', 'sales@beta.test', '+49 2');
    crm.run('A-4', 'Delta', 'dup@delta.test', '+49 4');
    crm.run('A-5', 'Delta Sales', 'dup@delta.test', '+49 5');
    crm.run('A-6', 'Zeta', 'zeta@zeta.test', '+49 6');
    const erp = f.erp.prepare('INSERT INTO clients (client_no, company_name, mail, telephone) VALUES (?, ?, ?, ?)');
    erp.run('C-77', 'ACME GmbH', ' info@acme.test', '+49 777');
    erp.run('C-78', 'Beta', 'sales@beta.test', '+49 2');
    erp.run('C-80', 'Delta', 'DUP@delta.test', '+49 4');
    await f.runtime.init.ensureInitialized();
    for (const name of ['HIGHWATER_TABLES_ENDPOINT', 'HIGHWATER_LOCAL_TABLES', 'SERVICEBUS_CONNECTION_STRING', 'ServiceBusConnection', 'ServiceBusConnection__fullyQualifiedNamespace']) delete process.env[name];
    process.env.AzureWebJobsStorage = f.settings.storageConnectionString;
    process.env.HIGHWATER_DATA_DIR = f.settings.dataDir;
  });
  afterAll(async () => {
    process.env = { ...SAVED };
    await f?.close();
  });
  beforeEach(() => {
    out = [];
    err = [];
    jest.spyOn(console, 'log').mockImplementation((line: unknown) => void out.push(String(line)));
    jest.spyOn(console, 'error').mockImplementation((line: unknown) => void err.push(String(line)));
  });
  afterEach(() => jest.restoreAllMocks());

  it('reports an unknown pair, a pair without match fields and a side that cannot be read', async () => {
    expect(await cli('pairs', 'match', 'nope')).toBe(2);
    expect(err.join('\n')).toBe(`error: unknown pair "nope" in ${f.dir}; known pairs: broken, companies, plain`);
    err.length = 0;
    expect(await cli('pairs', 'match', 'plain')).toBe(2);
    expect(err.join('\n')).toMatch(/^error: pair "plain" has no match fields: add `match` to the pair .*records with the same key on both sides need nothing, the first sync couples them by their key$/);
    err.length = 0;
    expect(await cli('pairs', 'match', 'broken')).toBe(1);
    expect(err.join('\n')).toMatch(/^error: pair broken: side b \(connection erp, entity no_such_table\) could not be read: .*no_such_table/);
  });

  it('shows the matches on a dry run and changes nothing', async () => {
    const before = { crm: crmRows(), erp: erpRows() };
    expect(await cli('pairs', 'match', 'companies')).toBe(0);
    expect(out).toEqual([
      'pair companies: read 5 records of side a (crm companies), 3 of side b (erp clients)',
      '  matched      2 (2 by match fields, 0 by shared key)',
      '  ambiguous    1 group (2 a, 1 b records): not coupled; --apply holds them until resolved',
      '  unmatched a  1: the first sync creates them on side b',
      '  unmatched b  0: the first sync creates them on side a',
      '  coupled      0 a, 0 b records already: skipped',
      'matched:',
      '  A-1 ↔ C-77',
      '  A-2 ↔ C-78',
      'ambiguous:',
      '  ["dup@delta.test"]: a A-4, A-5 ↔ b C-80',
      'unmatched a:',
      '  A-6',
      'dry run: nothing written; run again with --apply to couple the 2 matched records',
    ]);
    out.length = 0;
    expect(await cli('pairs', 'match', 'companies', '--json')).toBe(0);
    expect(JSON.parse(out.join('\n'))).toMatchObject({
      pair: 'companies',
      read: { a: { records: 5, skipped: 0 }, b: { records: 3, skipped: 0 } },
      matched: [
        { keyA: 'A-1', keyB: 'C-77', by: 'fields' },
        { keyA: 'A-2', keyB: 'C-78', by: 'fields' },
      ],
      ambiguous: [{ values: ['dup@delta.test'], a: ['A-4', 'A-5'], b: ['C-80'] }],
      unmatchedA: ['A-6'],
      unmatchedB: [],
      applied: false,
      written: 0,
    });
    expect(await f.runtime.couplings.list('companies')).toEqual([]);
    expect(await f.runtime.couplings.listConflicts('companies')).toEqual([]);
    expect({ crm: crmRows(), erp: erpRows() }).toEqual(before);
  });

  it('couples the matched records with --apply and holds the ambiguous ones', async () => {
    expect(await cli('pairs', 'match', 'companies', '--apply')).toBe(0);
    expect(out.at(-2)).toBe('applied: 2 couplings written; 3 ambiguous records held (see highwater conflicts list)');
    const couplings = await f.runtime.couplings.list('companies');
    expect(couplings.map((c) => [c.keyA, c.keyB, c.hashA, c.hashB, c.trackerA, c.trackerB])).toEqual([
      ['A-1', 'C-77', {}, {}, null, null],
      ['A-2', 'C-78', {}, {}, null, null],
    ]);
    const holds = await f.runtime.couplings.listConflicts('companies');
    expect(holds.map((c) => [c.keyA, c.keyB, c.fields])).toEqual([
      ['A-4', 'A-4', ['(ambiguous)', 'candidate b C-80']],
      ['A-5', 'A-5', ['(ambiguous)', 'candidate b C-80']],
      ['C-80', 'C-80', ['(ambiguous)', 'candidate a A-4', 'candidate a A-5']],
    ]);
    // Run again: nothing more to couple, the holds stay as they are.
    out.length = 0;
    expect(await cli('pairs', 'match', 'companies', '--apply')).toBe(0);
    expect(out[0]).toBe('pair companies: read 5 records of side a (crm companies), 3 of side b (erp clients)');
    expect(out).toContain('  coupled      2 a, 2 b records already: skipped');
    expect(out.at(-2)).toBe('applied: 0 couplings written; 3 ambiguous records held (see highwater conflicts list)');
  });

  it('then syncs without duplicates: creates only the unmatched record, merges the coupled ones by the policy, sends nothing more', async () => {
    const first = await sync();
    expect(first.aToB).toBe(3);
    // Policy a for name and email, b for the phone; only A-6 is new on the ERP; the held records stay where they are.
    expect(erpRows()).toEqual([
      { client_no: 'A-6', company_name: 'Zeta', mail: 'zeta@zeta.test', telephone: '+49 6' },
      { client_no: 'C-77', company_name: 'Acme', mail: 'Info@Acme.test', telephone: '+49 777' },
      { client_no: 'C-78', company_name: 'Beta', mail: 'sales@beta.test', telephone: '+49 2' },
      { client_no: 'C-80', company_name: 'Delta', mail: 'DUP@delta.test', telephone: '+49 4' },
    ]);
    expect(crmRows()).toEqual([
      { account_id: 'A-1', name: 'Acme', email: 'Info@Acme.test', phone: '+49 777' },
      { account_id: 'A-2', name: 'Beta', email: 'sales@beta.test', phone: '+49 2' },
      { account_id: 'A-4', name: 'Delta', email: 'dup@delta.test', phone: '+49 4' },
      { account_id: 'A-5', name: 'Delta Sales', email: 'dup@delta.test', phone: '+49 5' },
      { account_id: 'A-6', name: 'Zeta', email: 'zeta@zeta.test', phone: '+49 6' },
    ]);
    expect(await sync()).toEqual({ aToB: 0, bToA: 0 });
    expect((await f.runtime.couplings.list('companies')).map((c) => [c.keyA, c.keyB])).toEqual([
      ['A-1', 'C-77'],
      ['A-2', 'C-78'],
      ['A-6', 'A-6'],
    ]);
  });

  it('creates a held record once an operator resolves its hold, and releases the others when the command runs again', async () => {
    // The operator finds that A-5 is a company of its own: side a's record goes to the ERP.
    expect(await runCli(['conflicts', 'resolve', 'companies', 'A-5', '--take', 'a', '--config', f.dir])).toBe(0);
    await f.drain();
    expect(erpRows().map((r) => r.client_no)).toEqual(['A-5', 'A-6', 'C-77', 'C-78', 'C-80']);
    // A-4 is now C-80's only candidate: matched, and both holds released.
    out.length = 0;
    expect(await cli('pairs', 'match', 'companies', '--apply')).toBe(0);
    expect(out).toContain('  A-4 ↔ C-80');
    expect(out.at(-2)).toBe('applied: 1 coupling written; 0 ambiguous records held, 2 released (see highwater conflicts list)');
    expect(await f.runtime.couplings.listConflicts('companies')).toEqual([]);
    // Detection passed the held records: the release sent each a sync, which merges them (policy a).
    await f.drain();
    expect(erpRows().find((r) => r.client_no === 'C-80')).toEqual({ client_no: 'C-80', company_name: 'Delta', mail: 'dup@delta.test', telephone: '+49 4' });
    await sync();
    expect(erpRows().map((r) => r.client_no)).toEqual(['A-5', 'A-6', 'C-77', 'C-78', 'C-80']);
    expect(crmRows().map((r) => r.account_id)).toEqual(['A-1', 'A-2', 'A-4', 'A-5', 'A-6']);
    expect(await sync()).toEqual({ aToB: 0, bToA: 0 });
  });
});
