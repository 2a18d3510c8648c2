import type { DescriberEntry } from '../../connectors/base/entity-describer';
import { scrubSecrets } from '../bus/message-properties';
import type { HighwaterConfig } from '../model/config';
import type { Connection } from '../model/connection';
import type { ConfigIssue } from '../platform/config-issue';
import { errorMessage } from '../platform/errors';
import { OUTBOX_COLUMN_DEFAULTS, type OutboxSettings } from '../../connectors/sql/outbox-settings';
import { type CheckedConnection, EntityChecks } from './connection-check-entities';
import { moveToPair } from './pair-expansion';
import { CONFIG_KINDS, type ConfigKind } from './schema';

/**
 * `highwater check`: what `config validate` cannot see without the systems. Opens every
 * connection of a valid configuration and checks that each secret it names resolves, that it
 * connects, and that what the mappings and jobs name exists there: source and target tables or
 * entity sets, columns, the watermark column and its type, a unique key on a SQL target's key.
 * Issues read like validation issues (file, property path, entry); what a connection type
 * cannot check is said in a notice, never skipped silently.
 */

export interface ConnectionCheckOptions {
  /** The folder the configuration was loaded from (relative SQLite files resolve against it). */
  configDir: string;
  /** The file of each kind, as the issues name it. Default `connections`, `mappings`, `jobs`. */
  files?: Partial<Record<ConfigKind, string>>;
  /** An app setting's value (the environment, as the host reads secrets); undefined when not set. */
  resolveSecret: (name: string) => string | undefined;
  /** How each connection type is described. Default: the shipped ones (`connectors/describers.ts`). */
  describers?: Readonly<Record<string, DescriberEntry>>;
}

export interface ConnectionCheckReport {
  /** Problems, in file order (connections, mappings, jobs), then by entry. */
  issues: ConfigIssue[];
  /** What was not checked, and why. */
  notices: string[];
}

function defaultDescribers(): Readonly<Record<string, DescriberEntry>> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when a check runs, with no connector code before
  return (require('../../connectors/describers') as typeof import('../../connectors/describers')).DESCRIBERS;
}

const label = (c: Connection) => `${c.type} connection "${c.name}"`;

/** Checks `config` against its systems. Never throws for a system's failure: it is an issue. */
export async function checkConnections(config: HighwaterConfig, options: ConnectionCheckOptions): Promise<ConnectionCheckReport> {
  const files = { connections: 'connections', mappings: 'mappings', jobs: 'jobs', pairs: 'pairs', ...options.files };
  const issues: ConfigIssue[] = [];
  const notices: string[] = [];
  const describers = options.describers ?? defaultDescribers();
  const open = new Map<string, CheckedConnection>();
  try {
    for (const [index, connection] of config.connections.entries()) {
      const at = { file: files.connections, entry: connection.name };
      let missing = false;
      for (const [setting, envName] of Object.entries(connection.secrets)) {
        const value = options.resolveSecret(envName);
        if (value !== undefined && value !== '') continue;
        missing = true;
        issues.push({ ...at, path: `connections[${index}].secrets.${setting}`, message: `names app setting ${envName}, which is not set` });
      }
      const entry = describers[connection.type.trim().toLowerCase()];
      if (!entry) {
        notices.push(`${label(connection)}: its tables and columns are not checked (no check for connector type "${connection.type}")`);
        continue;
      }
      if ('skipped' in entry) {
        notices.push(`${label(connection)}: ${entry.skipped}`);
        continue;
      }
      if (missing) {
        notices.push(`${label(connection)}: not opened (a secret is missing); what its jobs name there is not checked`);
        continue;
      }
      const type = connection.type.trim().toLowerCase();
      try {
        const describer = entry.open({ connection, resolveSecret: options.resolveSecret, configDir: options.configDir });
        open.set(connection.name, { label: label(connection), describer, upsertNeedsUniqueKey: type === 'sqlite' || type === 'postgres' || type === 'mysql' });
        await describer.connect();
      } catch (err) {
        open.delete(connection.name);
        issues.push({ ...at, path: `connections[${index}]`, message: `cannot connect: ${scrubSecrets(errorMessage(err))}` });
      }
    }
    const checks = new EntityChecks(files, issues);
    const deadTold = new Set<string>();
    const mappings = new Map(config.mappings.map((m, index) => [m.name, { mapping: m, at: { index, name: m.name } }]));
    for (const [index, job] of config.jobs.entries()) {
      const found = mappings.get(job.mapping);
      if (!found) continue;
      const source = open.get(job.source);
      const target = open.get(job.target);
      const outbox = outboxOf(config.connections, job.source);
      if (source && outbox) {
        await checks.outboxJob(source, outbox.settings, outbox.at, found.mapping, found.at);
        if (!deadTold.has(job.source)) {
          deadTold.add(job.source);
          const told = await setAsideNotice(source, outbox.settings);
          if (told) notices.push(told);
        }
      } else if (source) {
        await checks.source(source, found.mapping, found.at);
        await checks.job(source, found.mapping, job, { index, name: job.name });
      }
      if (target) await checks.target(target, found.mapping, found.at, job);
    }
  } finally {
    await Promise.all([...open.values()].map((c) => c.describer.close().catch(() => undefined)));
  }
  // What was found on a pair's generated job or mapping belongs to the pair: once, although both
  // directions name a pair field (one as its target, the other as its source).
  const seen = new Set<string>();
  const moved = issues.map((issue) => moveToPair(issue, config, files)).filter((issue) => {
    const key = `${issue.file}\n${issue.path}\n${issue.message}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
  return { issues: ordered(moved, files), notices };
}

/** The outbox settings of the connection named `name` and where it is, when it reads an outbox. */
function outboxOf(connections: readonly Connection[], name: string): { settings: OutboxSettings; at: { index: number; name: string } } | undefined {
  const index = connections.findIndex((c) => c.name === name);
  const settings = connections[index]?.settings.outbox as OutboxSettings | undefined;
  return index >= 0 && settings ? { settings, at: { index, name } } : undefined;
}

/**
 * A notice when the outbox holds rows set aside (an operator's to fix and release); undefined
 * when it holds none or cannot be read (a missing table or column is an issue of its own).
 */
async function setAsideNotice(conn: CheckedConnection, outbox: OutboxSettings): Promise<string | undefined> {
  const column = outbox.columns?.deadReason ?? OUTBOX_COLUMN_DEFAULTS.deadReason;
  try {
    const reason = await conn.describer.sample?.(outbox.table, column);
    if (reason === null || reason === undefined) return undefined;
    return `${conn.label}: the outbox "${outbox.table}" holds rows set aside (${column} is set), e.g. ${JSON.stringify(String(reason))}; fix each and clear its ${column} to send it`;
  } catch {
    return undefined;
  }
}

/** Stable: by file (connections, mappings, jobs), then by the entry's index. */
function ordered(issues: ConfigIssue[], files: Record<ConfigKind, string>): ConfigIssue[] {
  const fileOrder = (issue: ConfigIssue) => CONFIG_KINDS.findIndex((kind) => files[kind] === issue.file);
  const entryIndex = (issue: ConfigIssue) => Number(/^\w+\[(\d+)\]/.exec(issue.path)?.[1] ?? -1);
  return [...issues].sort((a, b) => fileOrder(a) - fileOrder(b) || entryIndex(a) - entryIndex(b));
}
