/**
 * A valid pair as raw input (what a pairs file or the `pairs` table holds), the design's example
 * (docs/two-way.md) trimmed, for tests to break one property at a time. Each call returns a fresh copy.
 */
export interface RawPair {
  name: string;
  a: Record<string, unknown>;
  b: Record<string, unknown>;
  fields: Array<Record<string, unknown>>;
  [property: string]: unknown;
}

export function validRawPair(): RawPair {
  return {
    name: 'accounts',
    schedule: '*/30 * * * * *',
    a: { connection: 'crm', entity: 'accounts', key: ['account_no'], watermark: { type: 'datetime', field: 'modified_at' } },
    b: { connection: 'erp', entity: 'customers', key: ['customer_no'], watermark: { type: 'datetime', field: 'changed_at' } },
    fields: [
      { a: 'account_no', b: 'customer_no' },
      { a: 'name', b: 'company_name' },
      { a: 'status', b: 'state', toB: [{ op: 'valueMap', map: { A: 'active', I: 'inactive' } }] },
      { a: 'email', b: 'mail', direction: 'toB', toB: [{ op: 'lower' }] },
      { a: 'credit_limit', b: 'credit_limit', direction: 'toA', conflict: 'b' },
    ],
    match: [{ a: 'email', b: 'mail', ignoreCase: true }],
  };
}

/** Two connections the pair names, no jobs or mappings of their own. */
export function pairConfig(...pairs: object[]): { connections: object[]; mappings: object[]; jobs: object[]; pairs: object[] } {
  return {
    connections: [
      { name: 'crm', type: 'sqlite', settings: { file: './crm.db' } },
      { name: 'erp', type: 'sqlite', settings: { file: './erp.db' } },
    ],
    mappings: [],
    jobs: [],
    pairs,
  };
}
