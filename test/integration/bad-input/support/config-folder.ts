import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';

type Entry = Record<string, unknown>;

/** The valid configuration every invalid case starts from: two SQLite connections, two mappings, two jobs (one the other's response job). */
function baseConfig(): { connections: Entry[]; mappings: Entry[]; jobs: Entry[] } {
  return {
    connections: [
      { name: 'crm', type: 'sqlite', settings: { file: './crm.db' } },
      { name: 'erp', type: 'sqlite', settings: { file: './erp.db', versionField: 'modified_at' } },
    ],
    mappings: [
      {
        name: 'account-to-customer',
        source: { entity: 'accounts', key: ['id'] },
        target: { entity: 'customers', key: ['crm_id'] },
        fields: [
          { target: 'crm_id', source: 'id' },
          { target: 'name', source: 'name', operations: [{ op: 'upper' }] },
        ],
        responseMapping: [{ from: 'customer_no', to: 'erp_number' }],
      },
      {
        name: 'number-to-account',
        source: { entity: 'customers', key: ['crm_id'] },
        target: { entity: 'accounts', key: ['id'] },
        fields: [
          { target: 'id', source: 'crm_id' },
          { target: 'erp_number', source: 'customer_no' },
        ],
      },
    ],
    jobs: [
      {
        name: 'crm-accounts',
        schedule: '0 */5 * * * *',
        source: 'crm',
        target: 'erp',
        mapping: 'account-to-customer',
        priority: 'high',
        watermark: { type: 'datetime', field: 'modified_at' },
        responseJob: 'erp-numbers',
      },
      {
        name: 'erp-numbers',
        schedule: '0 */5 * * * *',
        enabled: false,
        source: 'erp',
        target: 'crm',
        mapping: 'number-to-account',
        watermark: { type: 'datetime', field: 'modified_at' },
      },
    ],
  };
}

export type BaseConfig = ReturnType<typeof baseConfig>;

/** The YAML text of one kind's file after `edit` changed a fresh copy of the base configuration. */
export function yamlOf(kind: keyof BaseConfig, edit: (config: BaseConfig) => void): string {
  const config = baseConfig();
  edit(config);
  return stringify({ [kind]: config[kind] });
}

/**
 * Files of a case: file name → text; `null` removes the base file of that name. The base files
 * are `connections.yaml`, `mappings.yaml`, `jobs.yaml`.
 */
export type CaseFiles = Record<string, string | null>;

/** Writes the base configuration with `files` applied into a new folder under `root`; returns its path. */
export function writeCaseFolder(root: string, name: string, files: CaseFiles): string {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  const base = baseConfig();
  const contents: Record<string, string | null> = {
    'connections.yaml': stringify({ connections: base.connections }),
    'mappings.yaml': stringify({ mappings: base.mappings }),
    'jobs.yaml': stringify({ jobs: base.jobs }),
    ...files,
  };
  for (const [file, text] of Object.entries(contents)) if (text !== null) writeFileSync(path.join(dir, file), text);
  return dir;
}

/** A temp root for case folders, removed by `remove()`. */
export function caseRoot(): { root: string; remove(): void } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'hw-bad-config-'));
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** One invalid configuration: the files that differ from the valid base, and every issue line it must produce. */
export interface ConfigCase {
  /** Folder name of the case (unique, also the test title). */
  name: string;
  files: CaseFiles;
  /** The error lines, `file: path: message`; `{dir}` stands for the case's folder. */
  expected: string[];
}

/** `jobs.yaml` of the base with one job edited. */
export const jobs = (edit: (job: Record<string, unknown>) => void, index = 0) => yamlOf('jobs', (c) => edit(c.jobs[index]));
/** `mappings.yaml` of the base with one mapping edited. */
export const mappings = (edit: (mapping: Record<string, unknown>) => void, index = 0) => yamlOf('mappings', (c) => edit(c.mappings[index]));
/** `connections.yaml` of the base with one connection edited. */
export const connections = (edit: (connection: Record<string, unknown>) => void, index = 0) => yamlOf('connections', (c) => edit(c.connections[index]));
/** A mapping edit replacing `fields[i]`. */
export const field = (i: number, value: Record<string, unknown>) => (m: Record<string, unknown>) => ((m.fields as unknown[])[i] = value);
