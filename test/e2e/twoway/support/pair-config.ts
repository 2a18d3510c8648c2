import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { SIDE_A, SIDE_B, type SideTable } from './pair-sides';

/**
 * The configuration the two-way suite's host runs: two connections (`crm`: side a's SQLite file;
 * `erp`: side b's SQLite file or PostgreSQL schema) and ONE pair, `accounts`, that keeps
 * `accounts` and `customers` equal. Empty mappings and jobs files: the pair expands into the
 * jobs `accounts.a-to-b` and `accounts.b-to-a` and their mappings.
 */

export const PAIR = 'accounts';
export const PAIR_JOBS = [`${PAIR}.a-to-b`, `${PAIR}.b-to-a`] as const;

/** Conflict policies the suite runs (`newest` depends on two clocks; the oracle keeps to exact ones). */
export type SoakPolicy = 'a' | 'b' | 'manual';

export interface PairConfigOptions {
  /** Side b in PostgreSQL: its schema and the env var holding the connection string; else a SQLite file. */
  postgres?: { schema: string; urlSetting: string };
  policy: SoakPolicy;
  /** 6-field NCRONTAB of both jobs (and the host's GetChanges). */
  schedule: string;
}

const side = (connection: string, spec: SideTable) => ({
  connection,
  entity: spec.table,
  key: [spec.key],
  watermark: { type: 'datetime', field: spec.stamp },
  softDelete: { field: 'deleted', op: 'eq', value: 1 },
});

function pairConfig(o: PairConfigOptions) {
  const erp = o.postgres
    ? { name: 'erp', type: 'postgres', settings: { schema: o.postgres.schema }, secrets: { connectionString: o.postgres.urlSetting } }
    : { name: 'erp', type: 'sqlite', settings: { file: './b.db' } };
  const a = SIDE_A.columns;
  const b = SIDE_B.columns;
  return {
    connections: [{ name: 'crm', type: 'sqlite', settings: { file: './a.db' } }, erp],
    pairs: [
      {
        name: PAIR,
        schedule: o.schedule,
        a: side('crm', SIDE_A),
        b: side('erp', SIDE_B),
        fields: [
          { a: SIDE_A.key, b: SIDE_B.key },
          { a: a.name, b: b.name },
          { a: a.email, b: b.email },
          { a: a.phone, b: b.phone },
          // The ERP is the authority on credit limits: they flow to the CRM only.
          { a: a.credit_limit, b: b.credit_limit, direction: 'toA' },
          { a: a.status, b: b.status, toB: [{ op: 'valueMap', map: SIDE_B.status }] },
        ],
        conflicts: o.policy,
        deletes: 'propagate',
      },
    ],
  };
}

/** Writes connections, (empty) mappings and jobs, and pairs into the config folder `dir`. */
export function writePairConfig(dir: string, options: PairConfigOptions): void {
  const config = pairConfig(options);
  writeFileSync(path.join(dir, 'connections.yaml'), stringify({ connections: config.connections }));
  writeFileSync(path.join(dir, 'mappings.yaml'), stringify({ mappings: [] }));
  writeFileSync(path.join(dir, 'jobs.yaml'), stringify({ jobs: [] }));
  writeFileSync(path.join(dir, 'pairs.yaml'), stringify({ pairs: config.pairs }));
}
