import path from 'node:path';
import Database from 'better-sqlite3';
import type { HostRun } from './crm-erp-host';
import { BIG_TEXT_CHARS, BIG_TEXT_EVERY, expectedOutcomes, isStaleAccount, JOBS, type CrmErpSizes } from './crm-erp-workload';

/**
 * Checks the end state of a crm-erp run against what the data says must happen, and returns
 * every problem found (empty: the run is right). The databases: ERP customers are exactly the
 * CRM accounts (deleted ones gone), with the mapped fields and the 60 KB notes intact; every CRM
 * account the sync wrote carries its ERP customer number; the stale ones kept the ERP's edit;
 * every contact whose account exists and that has an e-mail is in the ERP, no other; a CRM
 * outbox has every row marked processed. The host:
 * exit code 0, every job run succeeded, messages ended where expected, work queues empty.
 */
const EDITED = 'EDITED IN ERP';

function databaseProblems(configDir: string, sizes: CrmErpSizes): string[] {
  const expected = expectedOutcomes(sizes);
  let bigTexts = 0;
  for (let i = BIG_TEXT_EVERY; i <= sizes.accounts; i += BIG_TEXT_EVERY) if (!isStaleAccount(i)) bigTexts++;
  const db = new Database(path.join(configDir, 'erp.db'), { readonly: true, fileMustExist: true });
  try {
    db.prepare('ATTACH DATABASE ? AS crm').run(path.join(configDir, 'crm.db'));
    const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const checks: Array<[string, number, number]> = [
      ['CRM accounts', n('SELECT count(*) AS n FROM crm.accounts'), sizes.accounts],
      ['ERP customers', n('SELECT count(*) AS n FROM customers'), sizes.accounts],
      ['CRM accounts missing in the ERP', n('SELECT count(*) AS n FROM crm.accounts a WHERE NOT EXISTS (SELECT 1 FROM customers c WHERE c.crm_id = a.id)'), 0],
      ['ERP customers that are no CRM account (deletions not applied)', n('SELECT count(*) AS n FROM customers c WHERE NOT EXISTS (SELECT 1 FROM crm.accounts a WHERE a.id = c.crm_id)'), 0],
      [
        'ERP customers whose fields differ from the CRM account (name, notes, modified_at)',
        n(`SELECT count(*) AS n FROM customers c JOIN crm.accounts a ON a.id = c.crm_id
           WHERE c.name <> '${EDITED}' AND (c.name IS NOT upper(a.name) OR c.notes IS NOT a.notes OR c.modified_at IS NOT a.modified_at)`),
        0,
      ],
      ['ERP customers with the 60 KB notes', n(`SELECT count(*) AS n FROM customers WHERE length(notes) = ${BIG_TEXT_CHARS}`), bigTexts],
      [
        'CRM accounts without their ERP customer number',
        n(`SELECT count(*) AS n FROM crm.accounts a JOIN customers c ON c.crm_id = a.id
           WHERE c.name <> '${EDITED}' AND (a.erp_number IS NULL OR CAST(a.erp_number AS TEXT) <> CAST(c.customer_no AS TEXT))`),
        0,
      ],
      ['stale accounts that kept the ERP edit (outdated, ignored)', n(`SELECT count(*) AS n FROM customers WHERE name = '${EDITED}'`), expected.ignored],
      [
        'stale accounts given an ERP number',
        n(`SELECT count(*) AS n FROM crm.accounts a JOIN customers c ON c.crm_id = a.id WHERE c.name = '${EDITED}' AND a.erp_number IS NOT NULL`),
        0,
      ],
      [
        'contacts with an account and an e-mail missing in the ERP',
        n(`SELECT count(*) AS n FROM crm.contacts k WHERE k.email IS NOT NULL AND EXISTS (SELECT 1 FROM crm.accounts a WHERE a.id = k.account_id)
           AND NOT EXISTS (SELECT 1 FROM contacts e WHERE e.crm_id = k.id AND e.customer_crm_id = k.account_id AND e.notes IS k.notes)`),
        0,
      ],
      ['ERP contacts', n('SELECT count(*) AS n FROM contacts'), sizes.contacts - expected.parked - expected.deadLettered],
    ];
    // Read through its outbox (`--source outbox`), every outbox row is marked processed, none set aside.
    if (n("SELECT count(*) AS n FROM crm.sqlite_master WHERE name = 'outbox'") > 0) {
      checks.push(['CRM outbox rows not processed or set aside', n('SELECT count(*) AS n FROM crm.outbox WHERE processed_at IS NULL OR dead_reason IS NOT NULL'), 0]);
    }
    return checks.filter(([, actual, want]) => actual !== want).map(([what, actual, want]) => `${what}: ${actual}, expected ${want}`);
  } finally {
    db.close();
  }
}

function hostProblems(run: HostRun, sizes: CrmErpSizes): string[] {
  const expected = expectedOutcomes(sizes);
  const { summary } = run;
  const problems: string[] = [];
  if (run.exitCode !== 0) problems.push(`the host exited with ${run.exitCode}`);
  const detected: Record<string, number> = { [JOBS.accounts]: sizes.accounts, [JOBS.contacts]: sizes.contacts, [JOBS.deletions]: expected.detected - sizes.accounts - sizes.contacts };
  for (const [job, want] of Object.entries(detected)) {
    const got = summary.jobs[job];
    if (!got || got.outcome !== 'Succeeded' || got.detected !== want) problems.push(`job ${job}: ${got ? `${got.outcome}, detected ${got.detected}` : 'did not run'}, expected Succeeded, detected ${want}`);
  }
  for (const key of ['applied', 'ignored', 'parked', 'deadLettered'] as const) {
    if ((summary.ended[key] ?? 0) !== expected[key]) problems.push(`messages ${key}: ${summary.ended[key] ?? 0}, expected ${expected[key]}`);
  }
  const queue = (name: string) => summary.queues[name] ?? [0, 0, 0];
  for (const name of ['sbqhigh', 'sbqnormal', 'sbqlow']) {
    const [active, scheduled] = queue(name);
    if (active + scheduled > 0) problems.push(`${name} not drained: ${active} active, ${scheduled} scheduled`);
  }
  const sideQueues: Array<[string, number, number]> = [
    ['sbqignored active', queue('sbqignored')[0], expected.ignored],
    ['sbqtransitivenormal active', queue('sbqtransitivenormal')[0], expected.parked],
    ['sbqnormal dead-letter', queue('sbqnormal')[2], expected.deadLettered],
  ];
  for (const [what, got, want] of sideQueues) if (got !== want) problems.push(`${what}: ${got}, expected ${want}`);
  return problems;
}

/** Every problem with the run's end state; empty when it is right. */
export function verifyCrmErp(configDir: string, sizes: CrmErpSizes, run: HostRun): string[] {
  return [...hostProblems(run, sizes), ...databaseProblems(configDir, sizes)];
}
