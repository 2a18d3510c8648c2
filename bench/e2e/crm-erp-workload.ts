import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { CRM_OUTBOX_SCHEMA, outboxWriter, readCrmThroughOutbox } from './crm-erp-outbox';

/**
 * The crm-erp scenario's data and config: the demo's CRM and ERP (`examples/demo`) with heavier
 * rows. Four jobs as the demo has them — accounts → ERP customers (high, `skipOutdatedMessages`,
 * `skipUnchanged`, a response job that writes the ERP's generated customer number back to the
 * CRM), contacts → ERP contacts (normal, foreign key on the customer, `transitiveRetries: 3`),
 * deleted accounts → delete ERP customers (low) — and a few rows that end elsewhere than
 * "applied": stale accounts (ignored), contacts without an e-mail (dead-lettered) and, opt-in,
 * contacts without an account (parked). Deterministic for given sizes.
 */

export interface CrmErpSizes {
  accounts: number;
  contacts: number;
  /** Add contacts whose account does not exist (parked after 3 retries: ≥ 29 s of backoff at the end of a run). */
  orphans?: boolean;
}

/** Rows per 60 KB text: row i carries one when `i % BIG_TEXT_EVERY === 0`. */
export const BIG_TEXT_EVERY = 1000;
export const BIG_TEXT_CHARS = 60 * 1024;
/** Account i is edited in the ERP after the CRM's change (→ ignored, outdated) when `i % 2000 === 1000`. */
export const isStaleAccount = (i: number) => i % 2000 === 1000;
/** With `orphans`, contact i refers to an account that does not exist (→ parked after its retries) when `i % 2000 === 500`. */
export const isOrphanContact = (i: number, sizes: CrmErpSizes) => sizes.orphans === true && i % 2000 === 500;
/** Contact i has no e-mail, which the ERP requires (→ dead-lettered at once) when `i % 2000 === 250`. */
export const isInvalidContact = (i: number) => i % 2000 === 250;
/** ERP customers whose CRM account was deleted (tombstones): 1 per 100 accounts, at least one. */
export const deletedAccounts = (sizes: CrmErpSizes) => Math.max(1, Math.floor(sizes.accounts / 100));

export const JOBS = {
  accounts: 'crm-accounts-to-erp',
  contacts: 'crm-contacts-to-erp',
  deletions: 'crm-deleted-accounts-to-erp',
  response: 'erp-customer-number-to-crm',
} as const;

export const accountId = (i: number) => `A-${String(i).padStart(6, '0')}`;
export const contactId = (i: number) => `C-${String(i).padStart(6, '0')}`;
const deletedId = (i: number) => `D-${String(i).padStart(6, '0')}`;

/** What the run must end with, message by message (every queue, response messages included). */
export interface CrmErpExpected {
  /** Messages detection sends: accounts + contacts + deletions. */
  detected: number;
  /** Response messages (one per account applied). */
  responses: number;
  applied: number;
  ignored: number;
  parked: number;
  deadLettered: number;
  /** detected + responses. */
  messages: number;
}

const count = (n: number, pick: (i: number) => boolean) => {
  let c = 0;
  for (let i = 1; i <= n; i++) if (pick(i)) c++;
  return c;
};

export function expectedOutcomes(sizes: CrmErpSizes): CrmErpExpected {
  const stale = count(sizes.accounts, isStaleAccount);
  const orphans = count(sizes.contacts, (i) => isOrphanContact(i, sizes));
  const invalid = count(sizes.contacts, isInvalidContact);
  const deletions = deletedAccounts(sizes);
  const responses = sizes.accounts - stale;
  const detected = sizes.accounts + sizes.contacts + deletions;
  return {
    detected,
    responses,
    applied: responses + responses + (sizes.contacts - orphans - invalid) + deletions,
    ignored: stale,
    parked: orphans,
    deadLettered: invalid,
    messages: detected + responses,
  };
}

const CRM_SCHEMA = `
  CREATE TABLE accounts (id TEXT PRIMARY KEY, name TEXT, city TEXT, street TEXT, phone TEXT, notes TEXT, modified_at TEXT NOT NULL, erp_number TEXT);
  CREATE INDEX accounts_modified ON accounts (modified_at, id);
  CREATE TABLE contacts (id TEXT PRIMARY KEY, account_id TEXT, first_name TEXT, last_name TEXT, email TEXT, phone TEXT, notes TEXT, modified_at TEXT NOT NULL);
  CREATE INDEX contacts_modified ON contacts (modified_at, id);
  CREATE TABLE deleted_accounts (id TEXT PRIMARY KEY, deleted_at TEXT NOT NULL);`;

export const ERP_SCHEMA = `
  CREATE TABLE customers (customer_no INTEGER PRIMARY KEY AUTOINCREMENT, crm_id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, city TEXT, street TEXT, phone TEXT, notes TEXT, modified_at TEXT,
    crm_version INTEGER);
  CREATE TABLE contacts (crm_id TEXT PRIMARY KEY, customer_crm_id TEXT NOT NULL REFERENCES customers (crm_id) ON DELETE CASCADE, full_name TEXT NOT NULL, email TEXT NOT NULL, phone TEXT, notes TEXT);
  INSERT INTO sqlite_sequence (name, seq) VALUES ('customers', 9999);`;

const CITIES = ['Berlin', ' Hamburg', 'München ', 'Köln', 'Frankfurt', 'Stuttgart', 'Leipzig', 'Dresden'];
const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Margaret', 'Niklaus'];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Thompson', 'Hamilton', 'Wirth'];
const LOREM = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. ';
/** CRM change timestamps: one second apart from 2026-01-01; ERP edits of stale accounts are later than all of them. */
const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
const ERP_EDITED_AT = '2030-01-01T00:00:00.000Z';
/** The version (outbox id) of the stale accounts' ERP rows, read by `--source outbox` runs: newer than any change of the outbox. */
export const ERP_EDITED_VERSION = 1_000_000_000_000;

/** ~300 bytes of notes, or 60 KB for every {@link BIG_TEXT_EVERY}th row. */
export function notes(kind: 'account' | 'contact', i: number): string {
  const text = `${kind} ${i}: ${LOREM.repeat(3)}`;
  return i % BIG_TEXT_EVERY === 0 ? text.repeat(Math.ceil(BIG_TEXT_CHARS / text.length)).slice(0, BIG_TEXT_CHARS) : text;
}

/** The account contact i belongs to: spread over all accounts, not in their order. */
export function accountOf(i: number, sizes: CrmErpSizes): string {
  return isOrphanContact(i, sizes) ? `A-MISSING-${i}` : accountId(((i * 7919) % sizes.accounts) + 1);
}

/** Where the CRM's changes are read: its tables by `modified_at` (default) or its outbox (crm-erp-outbox.ts). */
export type CrmSource = 'sqlite' | 'outbox';

/** Creates `crm.db` and `erp.db` in `dir` (replacing old ones); with `outbox`, the CRM writes an outbox row after each change, in its transaction. */
export function generateCrmErp(dir: string, sizes: CrmErpSizes, source: CrmSource = 'sqlite'): void {
  const files = ['crm.db', 'erp.db'].map((f) => path.join(dir, f));
  for (const file of files) for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  const [crm, erp] = files.map((f) => new Database(f));
  try {
    for (const db of [crm, erp]) db.pragma('journal_mode = WAL');
    crm.exec(source === 'outbox' ? CRM_SCHEMA + CRM_OUTBOX_SCHEMA : CRM_SCHEMA);
    erp.exec(ERP_SCHEMA);
    const outbox = source === 'outbox' ? outboxWriter(crm) : () => undefined;
    const account = crm.prepare('INSERT INTO accounts (id, name, city, street, phone, notes, modified_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const contact = crm.prepare('INSERT INTO contacts (id, account_id, first_name, last_name, email, phone, notes, modified_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    const tombstone = crm.prepare('INSERT INTO deleted_accounts (id, deleted_at) VALUES (?, ?)');
    const customer = erp.prepare('INSERT INTO customers (crm_id, name, city, modified_at, crm_version) VALUES (?, ?, ?, ?, ?)');
    crm.transaction(() => {
      for (let i = 1; i <= sizes.accounts; i++) {
        const row = { id: accountId(i), name: `Company ${i} GmbH`, city: CITIES[i % CITIES.length], street: `Hauptstraße ${i % 300}`, phone: `+49 30 ${100000 + i}`, notes: notes('account', i), modified_at: at(i) };
        account.run(row.id, row.name, row.city, row.street, row.phone, row.notes, row.modified_at);
        outbox('accounts', 'insert', row);
      }
      for (let i = 1; i <= sizes.contacts; i++) {
        const first = FIRST[i % FIRST.length];
        const last = LAST[(i * 7) % LAST.length];
        const email = isInvalidContact(i) ? null : ` ${first}.${last}${i}@Example.com`;
        const row = { id: contactId(i), account_id: accountOf(i, sizes), first_name: first, last_name: last, email, phone: `+49 40 ${200000 + i}`, notes: notes('contact', i), modified_at: at(i) };
        contact.run(row.id, row.account_id, row.first_name, row.last_name, row.email, row.phone, row.notes, row.modified_at);
        outbox('contacts', 'insert', row);
      }
      for (let i = 1; i <= deletedAccounts(sizes); i++) {
        tombstone.run(deletedId(i), at(i));
        outbox('deleted_accounts', 'delete', { id: deletedId(i) });
      }
    })();
    erp.transaction(() => {
      for (let i = 1; i <= deletedAccounts(sizes); i++) customer.run(deletedId(i), `OLD COMPANY ${i}`, 'Berlin', '2025-12-01T00:00:00.000Z', null);
      for (let i = 1; i <= sizes.accounts; i++) if (isStaleAccount(i)) customer.run(accountId(i), 'EDITED IN ERP', 'Berlin', ERP_EDITED_AT, ERP_EDITED_VERSION);
    })();
  } finally {
    crm.close();
    erp.close();
  }
}

/**
 * `connections.yaml`, `mappings.yaml`, `jobs.yaml`: the demo's, with the heavier fields mapped;
 * `erp` replaces the ERP's SQLite connection (a MariaDB/MySQL one: crm-erp-mysql.ts).
 */
export function writeCrmErpConfig(dir: string, source: CrmSource = 'sqlite', erp?: { name: 'erp'; type: string; settings: object }): void {
  const base = {
    connections: [
      { name: 'crm', type: 'sqlite', settings: { file: './crm.db' } as object },
      erp ?? { name: 'erp', type: 'sqlite', settings: { file: './erp.db' } as object },
    ],
    mappings: [
      {
        name: 'crm-accounts-to-erp-customers',
        source: { entity: 'accounts', key: ['id'] },
        target: { entity: 'customers', key: ['crm_id'], versionField: 'modified_at' },
        fields: [
          { target: 'crm_id', source: 'id' },
          { target: 'name', source: 'name', operations: [{ op: 'upper' }] },
          { target: 'city', source: 'city', operations: [{ op: 'trim' }] },
          { target: 'street', source: 'street' },
          { target: 'phone', source: 'phone' },
          { target: 'notes', source: 'notes' },
          { target: 'modified_at', source: 'modified_at' },
        ],
        responseMapping: [{ from: 'customer_no', to: 'erp_number' }],
      },
      {
        name: 'crm-contacts-to-erp-contacts',
        source: { entity: 'contacts', key: ['id'] },
        target: { entity: 'contacts', key: ['crm_id'] },
        fields: [
          { target: 'crm_id', source: 'id' },
          { target: 'customer_crm_id', source: 'account_id' },
          { target: 'full_name', source: 'first_name', operations: [{ op: 'concat', fields: ['last_name'], separator: ' ' }, { op: 'trim' }] },
          { target: 'email', source: 'email', operations: [{ op: 'trim' }, { op: 'lower' }] },
          { target: 'phone', source: 'phone' },
          { target: 'notes', source: 'notes' },
        ],
      },
      {
        name: 'erp-customer-numbers-to-crm-accounts',
        source: { entity: 'customers', key: ['crm_id'] },
        target: { entity: 'accounts', key: ['id'] },
        fields: [
          { target: 'id', source: 'crm_id' },
          { target: 'erp_number', source: 'customer_no' },
        ],
      },
      {
        name: 'crm-deleted-accounts-to-erp-customers',
        source: { entity: 'deleted_accounts', key: ['id'] },
        target: { entity: 'customers', key: ['crm_id'] },
        fields: [{ target: 'crm_id', source: 'id' }],
      },
    ],
    jobs: [
      { name: JOBS.accounts, order: 10, schedule: '*/10 * * * * *', source: 'crm', target: 'erp', mapping: 'crm-accounts-to-erp-customers', priority: 'high',
        watermark: { type: 'datetime', field: 'modified_at' }, responseJob: JOBS.response, skipOutdatedMessages: true, skipUnchanged: true },
      { name: JOBS.contacts, order: 20, schedule: '*/10 * * * * *', source: 'crm', target: 'erp', mapping: 'crm-contacts-to-erp-contacts', priority: 'normal',
        watermark: { type: 'datetime', field: 'modified_at' }, transitiveRetries: 3 },
      { name: JOBS.deletions, order: 30, schedule: '*/10 * * * * *', source: 'crm', target: 'erp', mapping: 'crm-deleted-accounts-to-erp-customers', priority: 'low',
        action: 'Delete', watermark: { type: 'datetime', field: 'deleted_at' } },
      { name: JOBS.response, order: 40, schedule: '*/10 * * * * *', enabled: false, source: 'erp', target: 'crm', mapping: 'erp-customer-numbers-to-crm-accounts', priority: 'high',
        watermark: { type: 'datetime', field: 'modified_at' } },
    ],
  };
  const config = source === 'outbox' ? readCrmThroughOutbox(base) : base;
  for (const kind of ['connections', 'mappings', 'jobs'] as const) {
    fs.writeFileSync(path.join(dir, `${kind}.yaml`), stringify({ [kind]: config[kind] }));
  }
}
