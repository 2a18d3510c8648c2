import path from 'node:path';
import { loadConfigFolder } from '../../../src/config/load-config';
import type { HighwaterConfig } from '../../../src/model';

const DEMO = path.join(__dirname, '..', '..', '..', 'examples', 'demo');

/** Table → columns the demo reads or writes: what the demo databases must provide. */
function tablesUsed(config: HighwaterConfig, connection: string): Record<string, string[]> {
  const tables: Record<string, Set<string>> = {};
  const add = (table: string, columns: string[]) => columns.forEach((c) => (tables[table] ??= new Set()).add(c));
  for (const job of config.jobs) {
    const mapping = config.mappings.find((m) => m.name === job.mapping);
    if (!mapping) throw new Error(`job ${job.name}: no mapping ${job.mapping}`);
    if (job.source === connection) {
      const read = mapping.fields.flatMap((f) => [f.source, ...(f.operations ?? []).flatMap((op) => (op.op === 'concat' ? op.fields : []))]);
      add(mapping.source.entity, [...mapping.source.key, job.watermark.field, ...read.filter((c): c is string => c !== undefined)]);
    }
    if (job.target === connection) add(mapping.target.entity, mapping.fields.map((f) => f.target));
  }
  return Object.fromEntries(Object.entries(tables).map(([table, columns]) => [table, [...columns].sort()]));
}

describe('examples/demo', () => {
  let config: HighwaterConfig;
  beforeAll(async () => {
    config = await loadConfigFolder(DEMO);
  });

  it('has two SQLite connections with files relative to the config folder', () => {
    expect(config.connections).toEqual([
      { name: 'crm', type: 'sqlite', settings: { file: './crm.db' }, secrets: {}, maxConcurrency: 8 },
      { name: 'erp', type: 'sqlite', settings: { file: './erp.db' }, secrets: {}, maxConcurrency: 8 },
    ]);
  });

  it('runs every 10 s with priorities by importance and a response job', () => {
    const summary = config.jobs.filter((j) => !j.pair).map((j) => [j.name, j.priority, j.action, j.enabled, `${j.source}→${j.target}`, j.watermark.field, j.responseJob]);
    expect(summary).toEqual([
      ['crm-accounts-to-erp', 'high', 'NewUpdate', true, 'crm→erp', 'modified_at', 'erp-customer-number-to-crm'],
      ['crm-contacts-to-erp', 'normal', 'NewUpdate', true, 'crm→erp', 'modified_at', undefined],
      ['crm-deleted-accounts-to-erp', 'low', 'Delete', true, 'crm→erp', 'deleted_at', undefined],
      ['erp-customer-number-to-crm', 'high', 'NewUpdate', false, 'erp→crm', 'modified_at', undefined],
    ]);
    expect(new Set(config.jobs.filter((j) => !j.pair).map((j) => j.schedule))).toEqual(new Set(['*/10 * * * * *']));
    expect(config.jobs.every((j) => j.watermark.type === 'datetime')).toBe(true);
    expect(config.mappings.find((m) => m.name === 'crm-accounts-to-erp-customers')?.responseMapping).toEqual([
      { from: 'customer_no', to: 'erp_number' },
    ]);
  });

  it('takes pushed account changes, signed with the secret in HIGHWATER_DEMO_PUSH_SECRET', () => {
    expect(config.jobs.filter((j) => j.push).map((j) => [j.name, j.push, j.skipOutdatedMessages])).toEqual([
      ['crm-accounts-to-erp', expect.objectContaining({ format: 'generic', secret: 'HIGHWATER_DEMO_PUSH_SECRET' }), true],
    ]);
  });

  it('assumes these tables and columns in the demo databases', () => {
    expect(tablesUsed(config, 'crm')).toEqual({
      account_profiles: ['account_id', 'credit_limit', 'email', 'modified_at', 'payment_terms', 'phone'],
      accounts: ['city', 'erp_number', 'id', 'modified_at', 'name'],
      contacts: ['account_id', 'email', 'first_name', 'id', 'last_name', 'modified_at'],
      deleted_accounts: ['deleted_at', 'id'],
    });
    expect(tablesUsed(config, 'erp')).toEqual({
      contacts: ['crm_id', 'customer_crm_id', 'email', 'full_name'],
      customer_profiles: ['changed_at', 'credit_limit', 'crm_id', 'mail', 'telephone', 'terms'],
      customers: ['city', 'crm_id', 'customer_no', 'modified_at', 'name'],
    });
  });

  it('keeps account profiles in step both ways: one pair, two jobs, a manual field and a one-way field', () => {
    expect(config.pairs.map((p) => [p.name, p.conflicts, p.deletes, p.schedule])).toEqual([['account-profiles', 'newest', 'propagate', '*/5 * * * * *']]);
    expect(config.jobs.filter((j) => j.pair).map((j) => [j.name, j.pair, j.skipUnchanged])).toEqual([
      ['account-profiles.a-to-b', { name: 'account-profiles', side: 'a', partner: 'account-profiles.b-to-a' }, true],
      ['account-profiles.b-to-a', { name: 'account-profiles', side: 'b', partner: 'account-profiles.a-to-b' }, true],
    ]);
    const fields = config.pairs[0].fields.map((f) => [f.a, f.b, f.direction, f.conflict]);
    expect(fields).toEqual([
      ['account_id', 'crm_id', 'both', undefined],
      ['phone', 'telephone', 'both', undefined],
      ['email', 'mail', 'both', undefined],
      ['payment_terms', 'terms', 'both', 'manual'],
      ['credit_limit', 'credit_limit', 'toA', undefined],
    ]);
  });
});
