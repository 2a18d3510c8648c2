import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { checkFolder } from '../../../src/cli/commands/check';
import { defaultConnectorRegistry } from '../../../connectors/default-registry';

/**
 * `highwater check` of a pair on real SQLite files: its two generated jobs and mappings are
 * checked like any, and what is found on them is named at the pair's own property.
 */
describe('highwater check of a pair', () => {
  let dir: string;
  const validateOptions = () => ({ connectionTypes: defaultConnectorRegistry().connectionTypes() });

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-check-pairs-'));
    const crm = new Database(path.join(dir, 'crm.db'));
    crm.exec('CREATE TABLE contacts (id TEXT PRIMARY KEY, name TEXT, modified TEXT)');
    crm.prepare("INSERT INTO contacts VALUES ('C-1', 'Ada', '2026-01-01T00:00:00Z')").run();
    crm.close();
    const erp = new Database(path.join(dir, 'erp.db'));
    erp.exec('CREATE TABLE persons (crm_id TEXT PRIMARY KEY, changed TEXT)');
    erp.prepare("INSERT INTO persons VALUES ('C-1', '2026-01-01T00:00:00Z')").run();
    erp.close();
    const files = {
      connections: [
        { name: 'crm', type: 'sqlite', settings: { file: 'crm.db' } },
        { name: 'erp', type: 'sqlite', settings: { file: 'erp.db' } },
      ],
      mappings: [],
      jobs: [],
      pairs: [
        {
          name: 'people',
          a: { connection: 'crm', entity: 'contacts', key: ['id'], watermark: { type: 'datetime', field: 'modified' } },
          b: { connection: 'erp', entity: 'persons', key: ['crm_id'], watermark: { type: 'datetime', field: 'changed_at' } },
          fields: [
            { a: 'id', b: 'crm_id' },
            { a: 'name', b: 'full_name' },
          ],
        },
      ],
    };
    for (const [kind, list] of Object.entries(files)) fs.writeFileSync(path.join(dir, `${kind}.yaml`), stringify({ [kind]: list }));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names what is missing at the pair property it comes from', async () => {
    const report = await checkFolder(dir, { resolveSecret: () => undefined, validateOptions });
    expect(report.counts).toBe('2 connections, 0 mappings, 0 jobs, 1 pair');
    expect(report.issues.map((i) => `${i.file}: ${i.path} (${i.entry}): ${i.message}`)).toEqual([
      'pairs.yaml: pairs[0].fields[1].b (people): column "full_name" not found in table "persons" (sqlite connection "erp")',
      'pairs.yaml: pairs[0].b.watermark.field (people): column "changed_at" not found in table "persons" (sqlite connection "erp")',
    ]);
  });
});
