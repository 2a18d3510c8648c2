import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';

/** Raw (unvalidated) config lists, as written into a config folder. */
export interface FixtureConfig {
  connections: Array<Record<string, unknown>>;
  mappings: Array<Record<string, unknown>>;
  jobs: Array<Record<string, unknown>>;
}

/** A small valid configuration: two connections, one mapping, one job. */
export function fixtureConfig(): FixtureConfig {
  return {
    connections: [
      { name: 'crm', type: 'sqlite', settings: { file: 'crm.db' } },
      { name: 'erp', type: 'postgres', settings: { host: 'localhost', database: 'erp', user: 'sync' }, secrets: { password: 'ERP_PASSWORD' } },
    ],
    mappings: [
      {
        name: 'customers',
        source: { entity: 'customers', key: ['id'] },
        target: { entity: 'accounts', key: ['accountNumber'] },
        fields: [
          { target: 'accountNumber', source: 'id' },
          { target: 'name', source: 'name', operations: [{ op: 'trim' }] },
        ],
      },
    ],
    jobs: [
      { name: 'crm-to-erp-customers', schedule: '0 */5 * * * *', source: 'crm', target: 'erp', mapping: 'customers', watermark: { type: 'datetime', field: 'modifiedAt' } },
    ],
  };
}

/** Writes the config as `connections.yaml`, `mappings.yaml`, `jobs.yaml` into a new temp folder. */
export function writeConfigDir(config: FixtureConfig = fixtureConfig()): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-config-'));
  for (const kind of ['connections', 'mappings', 'jobs'] as const) {
    fs.writeFileSync(path.join(dir, `${kind}.yaml`), stringify({ [kind]: config[kind] }));
  }
  return dir;
}
