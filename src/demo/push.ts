import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { PUSH_SIGNATURE_HEADER, pushSignature } from '../push/push-auth';

/** The demo job that takes pushed changes (its `push` block in jobs.yaml). */
export const DEMO_PUSH_JOB = 'crm-accounts-to-erp';
/** The app setting its `push.secret` names. */
export const DEMO_PUSH_SECRET_SETTING = 'HIGHWATER_DEMO_PUSH_SECRET';
/** Where the demo keeps its generated secret (git-ignored), next to the demo databases. */
export const DEMO_PUSH_SECRET_FILE = '.push-secret';

/**
 * The demo's shared secret: the app setting when set, else the one generated into the demo
 * folder on first use. The host and `highwater demo push-account` both call this, so they agree
 * without a secret in the repository.
 */
export function demoPushSecret(dir: string, env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env[DEMO_PUSH_SECRET_SETTING];
  if (fromEnv) return fromEnv;
  const file = path.join(dir, DEMO_PUSH_SECRET_FILE);
  if (existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim();
    if (stored) return stored;
  }
  const secret = randomBytes(24).toString('hex');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

export interface DemoAccount {
  id: string;
  name: string | null;
  city: string | null;
  modified_at: string;
}

/** What the CRM would post after a change of `account`: a generic notification, as the job's mapping reads the record. */
export function demoAccountNotification(account: DemoAccount, sentAt: Date): string {
  return JSON.stringify({ sentAt: sentAt.toISOString(), changes: [{ action: 'upsert', record: account }] });
}

export interface PushedDemoAccount {
  account: DemoAccount;
  /** The host's answer: 202 with the message ids, or the refusal. */
  status: number;
  answer: unknown;
}

/**
 * Renames a CRM account (bumping its `modified_at`), then posts its notification to the local
 * host's `POST /api/hooks/crm-accounts-to-erp`, signed with the job's shared secret
 * (`x-highwater-signature`), the way a source system that pushes would.
 * @returns undefined when the CRM has no such account (nothing was posted).
 * @throws the fetch error when the host cannot be reached (the CRM row is changed by then; the
 *   next poll sends it).
 */
export async function pushDemoAccount(options: { dir: string; baseUrl: string; id: string; name: string; now?: () => Date; secret?: string }): Promise<PushedDemoAccount | undefined> {
  const now = options.now ?? (() => new Date());
  const crm = new Database(path.join(options.dir, 'crm.db'));
  let account: DemoAccount | undefined;
  try {
    crm.prepare('UPDATE accounts SET name = ?, modified_at = ? WHERE id = ?').run(options.name, now().toISOString(), options.id);
    account = crm.prepare('SELECT id, name, city, modified_at FROM accounts WHERE id = ?').get(options.id) as DemoAccount | undefined;
  } finally {
    crm.close();
  }
  if (!account) return undefined;
  const body = demoAccountNotification(account, now());
  const secret = options.secret ?? demoPushSecret(options.dir);
  const response = await fetch(`${options.baseUrl}/api/hooks/${DEMO_PUSH_JOB}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [PUSH_SIGNATURE_HEADER]: pushSignature(body, secret) },
    body,
  });
  const text = await response.text();
  let answer: unknown = text;
  try {
    answer = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's page): shown as text.
  }
  return { account, status: response.status, answer };
}

/**
 * Waits until the ERP customer of CRM account `id` is named `name` (as the demo's mapping writes
 * it: upper-cased). @returns when it was seen (`Date.now()`), or undefined after `timeoutMs`.
 */
export async function waitForErpCustomerName(dir: string, id: string, name: string, timeoutMs: number): Promise<number | undefined> {
  const started = Date.now();
  const erp = new Database(path.join(dir, 'erp.db'), { readonly: true, fileMustExist: true });
  try {
    const read = erp.prepare('SELECT name FROM customers WHERE crm_id = ?');
    for (;;) {
      const row = read.get(id) as { name: string } | undefined;
      if (row?.name === name) return Date.now();
      if (Date.now() - started > timeoutMs) return undefined;
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    erp.close();
  }
}
