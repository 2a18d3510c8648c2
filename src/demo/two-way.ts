import path from 'node:path';
import Database from 'better-sqlite3';

/**
 * The demo's two-way pair (`examples/demo/pairs.yaml`): account profiles that sales edit in the
 * CRM (phone, e-mail) and finance in the ERP (credit limit), both payment terms. Every insert and
 * update stamps the row by trigger — Highwater's own writes too, so they come back to the other
 * job as echoes, which the coupling recognises and does not send.
 */
export const PROFILE_COUNT = 50;

const STAMP = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;

const CRM_PROFILES = `
  CREATE TABLE IF NOT EXISTS account_profiles (account_id TEXT PRIMARY KEY, phone TEXT, email TEXT, payment_terms TEXT, credit_limit NUMERIC, modified_at TEXT NOT NULL DEFAULT (${STAMP}));
  CREATE INDEX IF NOT EXISTS account_profiles_modified ON account_profiles (modified_at, account_id);
  CREATE TRIGGER IF NOT EXISTS account_profiles_stamp AFTER UPDATE ON account_profiles WHEN NEW.modified_at = OLD.modified_at
    BEGIN UPDATE account_profiles SET modified_at = ${STAMP} WHERE account_id = NEW.account_id; END;`;

const ERP_PROFILES = `
  CREATE TABLE IF NOT EXISTS customer_profiles (crm_id TEXT PRIMARY KEY, telephone TEXT, mail TEXT, terms TEXT, credit_limit NUMERIC, changed_at TEXT NOT NULL DEFAULT (${STAMP}));
  CREATE INDEX IF NOT EXISTS customer_profiles_changed ON customer_profiles (changed_at, crm_id);
  CREATE TRIGGER IF NOT EXISTS customer_profiles_stamp AFTER UPDATE ON customer_profiles WHEN NEW.changed_at = OLD.changed_at
    BEGIN UPDATE customer_profiles SET changed_at = ${STAMP} WHERE crm_id = NEW.crm_id; END;`;

const pad = (n: number) => String(n).padStart(4, '0');

/** Creates the profile tables if missing; seeds them when new (CRM profiles, and two that exist only in the ERP). */
export function seedProfiles(dir: string): void {
  const crm = new Database(path.join(dir, 'crm.db'));
  const erp = new Database(path.join(dir, 'erp.db'));
  try {
    const fresh = crm.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE name = 'account_profiles'`).get() as { n: number };
    crm.exec(CRM_PROFILES);
    erp.exec(ERP_PROFILES);
    if (fresh.n > 0) return;
    const profile = crm.prepare('INSERT INTO account_profiles (account_id, phone, email, payment_terms, credit_limit) VALUES (?, ?, ?, ?, ?)');
    crm.transaction(() => {
      for (let i = 1; i <= PROFILE_COUNT; i++) profile.run(`A-${pad(i)}`, `+49 30 ${1000 + i}`, `buyer${i}@company${i}.example`, i % 3 === 0 ? 'NET60' : 'NET30', null);
    })();
    const erpOnly = erp.prepare('INSERT INTO customer_profiles (crm_id, telephone, mail, terms, credit_limit) VALUES (?, ?, ?, ?, ?)');
    erpOnly.run(`A-${pad(PROFILE_COUNT + 1)}`, '+49 40 5550', 'ap@erp-only.example', '30 days', 5000);
    erpOnly.run(`A-${pad(PROFILE_COUNT + 2)}`, '+49 40 5551', 'ap@erp-only-2.example', '60 days', 12000);
  } finally {
    crm.close();
    erp.close();
  }
}

/** Columns `demo edit` may set, per side. */
export const EDITABLE = {
  crm: { table: 'account_profiles', key: 'account_id', columns: ['phone', 'email', 'payment_terms', 'credit_limit'] },
  erp: { table: 'customer_profiles', key: 'crm_id', columns: ['telephone', 'mail', 'terms', 'credit_limit'] },
} as const;

export type DemoSide = keyof typeof EDITABLE;

/**
 * Sets one column of a profile on one side (the trigger stamps the row), as a user of that system would.
 * @returns false when the profile does not exist.
 */
export function editProfile(dir: string, side: DemoSide, id: string, column: string, value: string): boolean {
  const spec = EDITABLE[side];
  const db = new Database(path.join(dir, `${side}.db`));
  try {
    // The column is one of a fixed list (checked by the caller): never user text in SQL.
    const name = spec.columns.find((c) => c === column);
    if (!name) throw new Error(`unknown column "${column}"`);
    return db.prepare(`UPDATE ${spec.table} SET ${name} = ? WHERE ${spec.key} = ?`).run(value === '' ? null : value, id).changes === 1;
  } finally {
    db.close();
  }
}

/** One profile on both sides, for `demo show-profile`. */
export function readProfile(dir: string, id: string): { crm?: Record<string, unknown>; erp?: Record<string, unknown> } {
  const read = (side: DemoSide) => {
    const db = new Database(path.join(dir, `${side}.db`), { readonly: true });
    try {
      return db.prepare(`SELECT * FROM ${EDITABLE[side].table} WHERE ${EDITABLE[side].key} = ?`).get(id) as Record<string, unknown> | undefined;
    } finally {
      db.close();
    }
  };
  return { crm: read('crm'), erp: read('erp') };
}
