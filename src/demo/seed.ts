import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { seedProfiles } from './two-way';

/** Rows the demo creates; the README's walkthrough and summary refer to these. */
export const DEMO_SIZES = { accounts: 2000, contacts: 3000, deletedAccounts: 10 } as const;

/** Rows that end somewhere other than "applied", one each (README: "what the summary shows"). */
export const DEMO_SPECIAL = {
  /** ERP already holds a newer version of this customer: the CRM change is outdated → sbqignored. */
  staleAccount: 'A-0007',
  /** This contact's account does not exist: the ERP rejects it (foreign key) → sbqtransitivenormal. */
  orphanContact: 'C-3000',
  /** This contact has no e-mail, which the ERP requires → dead-lettered at once in sbqnormal. */
  invalidContact: 'C-0042',
} as const;

const CRM_SCHEMA = `
  CREATE TABLE accounts (id TEXT PRIMARY KEY, name TEXT, city TEXT, modified_at TEXT NOT NULL, erp_number TEXT);
  CREATE INDEX accounts_modified ON accounts (modified_at, id);
  CREATE TABLE contacts (id TEXT PRIMARY KEY, account_id TEXT, first_name TEXT, last_name TEXT, email TEXT, modified_at TEXT NOT NULL);
  CREATE INDEX contacts_modified ON contacts (modified_at, id);
  CREATE TABLE deleted_accounts (id TEXT PRIMARY KEY, deleted_at TEXT NOT NULL);`;

const ERP_SCHEMA = `
  CREATE TABLE customers (customer_no INTEGER PRIMARY KEY AUTOINCREMENT, crm_id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, city TEXT, modified_at TEXT);
  CREATE TABLE contacts (crm_id TEXT PRIMARY KEY, customer_crm_id TEXT NOT NULL REFERENCES customers (crm_id) ON DELETE CASCADE, full_name TEXT NOT NULL, email TEXT NOT NULL);
  -- Customer numbers start where the ERP's would: 10000.
  INSERT INTO sqlite_sequence (name, seq) VALUES ('customers', 9999);`;

const CITIES = ['Berlin', ' Hamburg', 'München ', 'Köln', 'Frankfurt', 'Stuttgart', 'Leipzig', 'Dresden'];
const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Margaret', 'Niklaus'];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Thompson', 'Hamilton', 'Wirth'];

const pad = (n: number) => String(n).padStart(4, '0');
/** Change timestamps: one second apart, starting 2026-01-01. */
const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();

/**
 * Creates `crm.db` and `erp.db` in `dir` with the demo data (deterministic). Existing files are
 * kept unless `reset` is set. Returns whether it created them.
 */
export function seedDemo(dir: string, options: { reset?: boolean } = {}): boolean {
  const crmFile = path.join(dir, 'crm.db');
  const erpFile = path.join(dir, 'erp.db');
  if (!options.reset && existsSync(crmFile) && existsSync(erpFile)) {
    // Demo databases from before the two-way pair get its tables.
    seedProfiles(dir);
    return false;
  }
  for (const file of [crmFile, erpFile]) for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });

  const crm = new Database(crmFile);
  const erp = new Database(erpFile);
  try {
    crm.pragma('journal_mode = WAL');
    erp.pragma('journal_mode = WAL');
    crm.exec(CRM_SCHEMA);
    erp.exec(ERP_SCHEMA);
    const account = crm.prepare('INSERT INTO accounts (id, name, city, modified_at) VALUES (?, ?, ?, ?)');
    const contact = crm.prepare('INSERT INTO contacts (id, account_id, first_name, last_name, email, modified_at) VALUES (?, ?, ?, ?, ?, ?)');
    const tombstone = crm.prepare('INSERT INTO deleted_accounts (id, deleted_at) VALUES (?, ?)');
    const customer = erp.prepare('INSERT INTO customers (crm_id, name, city, modified_at) VALUES (?, ?, ?, ?)');
    crm.transaction(() => {
      for (let i = 1; i <= DEMO_SIZES.accounts; i++) account.run(`A-${pad(i)}`, `Company ${i} GmbH`, CITIES[i % CITIES.length], at(i));
      for (let i = 1; i <= DEMO_SIZES.contacts; i++) {
        const id = `C-${pad(i)}`;
        const accountId = id === DEMO_SPECIAL.orphanContact ? 'A-9999' : `A-${pad(((i - 1) % DEMO_SIZES.accounts) + 1)}`;
        const first = FIRST[i % FIRST.length];
        const last = LAST[(i * 7) % LAST.length];
        const email = id === DEMO_SPECIAL.invalidContact ? null : ` ${first}.${last}${i}@Example.com`;
        contact.run(id, accountId, first, last, email, at(DEMO_SIZES.accounts + i));
      }
      for (let i = 1; i <= DEMO_SIZES.deletedAccounts; i++) tombstone.run(`A-${pad(DEMO_SIZES.accounts + i)}`, at(i));
    })();
    erp.transaction(() => {
      // Customers deleted in the CRM since the last sync: the deletion job removes them.
      for (let i = 1; i <= DEMO_SIZES.deletedAccounts; i++) customer.run(`A-${pad(DEMO_SIZES.accounts + i)}`, `OLD COMPANY ${i}`, 'Berlin', '2025-12-01T00:00:00.000Z');
      // Edited in the ERP after the CRM's change: the CRM change is outdated.
      customer.run(DEMO_SPECIAL.staleAccount, 'EDITED IN ERP', 'Berlin', '2026-06-01T00:00:00.000Z');
    })();
  } finally {
    crm.close();
    erp.close();
  }
  seedProfiles(dir);
  return true;
}

/** Renames an account and bumps its change timestamp (README walkthrough: "change a CRM row"). */
export function changeDemoAccount(dir: string, id: string, name: string, now: Date = new Date()): boolean {
  const crm = new Database(path.join(dir, 'crm.db'));
  try {
    return crm.prepare('UPDATE accounts SET name = ?, modified_at = ? WHERE id = ?').run(name, now.toISOString(), id).changes === 1;
  } finally {
    crm.close();
  }
}
