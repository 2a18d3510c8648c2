import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { CRM_SCHEMA, ERP_SCHEMA, SYNC_CONFIG } from '../../../support/sync-fixture';

export interface SyncFolder {
  dir: string;
  crm: Database.Database;
  erp: Database.Database;
  close(): void;
}

/**
 * A temp folder holding the sync fixture's configuration and empty CRM/ERP databases (WAL, so the
 * test can read while the host writes), for a local host to run on. `jobSchedule` replaces every
 * job's schedule (default: as in the fixture, every 5 minutes).
 */
export function writeSyncFolder(options: { jobSchedule?: string } = {}): SyncFolder {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hw-faults-'));
  const config = {
    ...SYNC_CONFIG,
    jobs: SYNC_CONFIG.jobs.map((job) => ({ ...job, ...(options.jobSchedule ? { schedule: options.jobSchedule } : {}) })),
  };
  for (const kind of ['connections', 'mappings', 'jobs'] as const) {
    writeFileSync(path.join(dir, `${kind}.yaml`), stringify({ [kind]: config[kind] }));
  }
  const open = (file: string, schema: string) => {
    const db = new Database(path.join(dir, file));
    db.pragma('journal_mode = WAL');
    db.exec(schema);
    return db;
  };
  const crm = open('crm.db', CRM_SCHEMA);
  const erp = open('erp.db', ERP_SCHEMA);
  return {
    dir,
    crm,
    erp,
    close() {
      crm.close();
      erp.close();
    },
  };
}

/** A logger that keeps every line (level + message) for assertions. */
export function recordingLogger(): { lines: string[]; info(m: string): void; warn(m: string): void; error(m: string): void } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => void lines.push(`info ${m}`),
    warn: (m) => void lines.push(`warn ${m}`),
    error: (m) => void lines.push(`error ${m}`),
  };
}
