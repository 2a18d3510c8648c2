import type { EntityDescriber, EntityDescription } from '../../connectors/base/entity-describer';
import { scrubSecrets } from '../bus/message-properties';
import { type Job, JobActionType } from '../model/job';
import type { Mapping } from '../model/mapping';
import type { ConfigIssue } from '../platform/config-issue';
import { errorMessage } from '../platform/errors';
import { OUTBOX_COLUMN_DEFAULTS, type OutboxSettings } from '../../connectors/sql/outbox-settings';
import { watermarkColumnProblem } from './connection-check-rules';
import type { ConfigKind } from './schema';

/** An opened connection as the checks use it. */
export interface CheckedConnection {
  /** e.g. `sqlite connection "crm"`. */
  label: string;
  describer: EntityDescriber;
  /** A SQL target's upsert (`ON CONFLICT (key)`) needs a unique key on the target key. */
  upsertNeedsUniqueKey: boolean;
}

/** Where an entry sits: its index in its file and its name. */
interface At {
  index: number;
  name: string;
}

/**
 * The checks of what mappings and jobs name against the entities of open connections. Each
 * entity is described once per connection; the same problem found through two jobs is reported
 * once.
 */
export class EntityChecks {
  private readonly described = new Map<string, Promise<EntityDescription | undefined>>();
  private readonly reported = new Set<string>();

  constructor(
    private readonly files: Record<ConfigKind, string>,
    readonly issues: ConfigIssue[],
  ) {}

  private add(kind: ConfigKind, at: At, path: string, message: string): void {
    const issue: ConfigIssue = { file: this.files[kind], path: `${kind}[${at.index}]${path}`, message, entry: at.name };
    const key = `${issue.file}\n${issue.path}\n${message}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.issues.push(issue);
  }

  /** The entity as the connection describes it, read once per connection. */
  private describe(conn: CheckedConnection, entity: string): Promise<EntityDescription | undefined> {
    const key = `${conn.label}\n${entity}`;
    let pending = this.described.get(key);
    if (!pending) {
      pending = conn.describer.describe(entity);
      this.described.set(key, pending);
    }
    return pending;
  }

  /** The entity, undefined when missing; null when it could not be read (reported at `path`). */
  private async entity(conn: CheckedConnection, entity: string, kind: ConfigKind, at: At, path: string): Promise<EntityDescription | null | undefined> {
    try {
      const found = await this.describe(conn, entity);
      if (!found) this.add(kind, at, path, `${conn.describer.entityWord} "${entity}" not found (${conn.label})`);
      return found;
    } catch (err) {
      this.add(kind, at, path, `cannot read ${conn.describer.entityWord} "${entity}": ${scrubSecrets(errorMessage(err))} (${conn.label})`);
      return null;
    }
  }

  private fieldWord(conn: CheckedConnection): string {
    return conn.describer.entityWord === 'entity set' ? 'property' : 'column';
  }

  /** Reports each of `fields` (name, path) that `entity` lacks. */
  private columns(conn: CheckedConnection, entity: string, described: EntityDescription, kind: ConfigKind, at: At, fields: Array<[string | undefined, string]>): void {
    for (const [name, path] of fields) {
      // Navigation paths and OData annotations (`customer/name`, `x@odata.bind`) are not columns of the entity.
      if (name === undefined || /[/@]/.test(name) || described.columns.has(name)) continue;
      this.add(kind, at, path, `${this.fieldWord(conn)} "${name}" not found in ${conn.describer.entityWord} "${entity}" (${conn.label})`);
    }
  }

  /** The mapping's source side: its entity, key, mapped source fields, concat fields and resolvers. */
  async source(conn: CheckedConnection, mapping: Mapping, at: At): Promise<void> {
    const entity = mapping.source.entity;
    const described = await this.entity(conn, entity, 'mappings', at, '.source.entity');
    if (described) {
      const fields: Array<[string | undefined, string]> = mapping.source.key.map((k, i) => [k, `.source.key[${i}]`]);
      mapping.fields.forEach((f, i) => {
        fields.push([f.source, `.fields[${i}].source`]);
        f.operations?.forEach((op, o) => {
          if (op.op === 'concat') op.fields.forEach((name, n) => fields.push([name, `.fields[${i}].operations[${o}].fields[${n}]`]));
        });
      });
      this.columns(conn, entity, described, 'mappings', at, fields);
    }
    await this.resolvers(conn, mapping, at);
  }

  /** The related entities and fields of the mapping's resolvers (read from the source connection). */
  private async resolvers(conn: CheckedConnection, mapping: Mapping, at: At): Promise<void> {
    for (const [i, f] of mapping.fields.entries()) {
      if (!f.resolver) continue;
      const path = `.fields[${i}].resolver`;
      const related = await this.entity(conn, f.resolver.entity, 'mappings', at, `${path}.entity`);
      if (related) this.columns(conn, f.resolver.entity, related, 'mappings', at, [[f.resolver.matchField, `${path}.matchField`], [f.resolver.returnField, `${path}.returnField`]]);
    }
  }

  /**
   * A job reading the outbox of its source connection (`conn` at `connection`): the outbox table
   * and the columns the settings name, and the mapping's resolvers. The mapping's source fields
   * are in each row's payload: they are checked as rows are read. (What the job may not set is
   * a validation issue: outbox-job-rules.ts.)
   */
  async outboxJob(conn: CheckedConnection, outbox: OutboxSettings, connection: At, mapping: Mapping, at: At): Promise<void> {
    const described = await this.entity(conn, outbox.table, 'connections', connection, '.settings.outbox.table');
    if (described) {
      const names = { ...OUTBOX_COLUMN_DEFAULTS, ...outbox.columns };
      const fields = Object.entries(names).map(([setting, name]): [string, string] => [name, `.settings.outbox.columns.${setting}`]);
      this.columns(conn, outbox.table, described, 'connections', connection, fields);
    }
    await this.resolvers(conn, mapping, at);
  }

  /** The mapping's target side for `job`: entity, key, mapped target fields, version field, and a unique key for upserts. */
  async target(conn: CheckedConnection, mapping: Mapping, at: At, job: Job): Promise<void> {
    // An action's target is a function or bound action, not an entity with columns.
    if (job.action === JobActionType.InvokeAction) return;
    const entity = mapping.target.entity;
    const described = await this.entity(conn, entity, 'mappings', at, '.target.entity');
    if (!described) return;
    const fields: Array<[string | undefined, string]> = mapping.target.key.map((k, i) => [k, `.target.key[${i}]`]);
    mapping.fields.forEach((f, i) => fields.push([f.target, `.fields[${i}].target`]));
    fields.push([mapping.target.versionField, '.target.versionField']);
    this.columns(conn, entity, described, 'mappings', at, fields);
    if (!conn.upsertNeedsUniqueKey || job.action !== JobActionType.NewUpdate) return;
    const key = [...mapping.target.key].sort().join('\n');
    if (described.uniqueKeys.some((unique) => [...unique].sort().join('\n') === key)) return;
    const columns = mapping.target.key.join(', ');
    this.add('mappings', at, '.target.key', `no primary key or unique index on (${columns}) of ${conn.describer.entityWord} "${entity}": upserts match records by it and need one to tell an insert from an update (${conn.label})`);
  }

  /** The job's source side: the watermark column and its type, filter and soft-delete fields. */
  async job(conn: CheckedConnection, mapping: Mapping, job: Job, at: At): Promise<void> {
    const entity = mapping.source.entity;
    // A missing or unreadable source entity is the mapping's issue, reported by `source`.
    const described = await this.describe(conn, entity).catch(() => undefined);
    if (!described) return;
    // A tracker beyond the columns (PostgreSQL's xmin) is no column to look for.
    const tracker = described.trackers?.get(job.watermark.field);
    const fields: Array<[string | undefined, string]> = tracker ? [] : [[job.watermark.field, '.watermark.field']];
    job.filter.forEach((c, i) => fields.push([c.field, `.filter[${i}].field`]));
    if (job.softDelete) fields.push([job.softDelete.field, '.softDelete.field']);
    this.columns(conn, entity, described, 'jobs', at, fields);
    const column = tracker ?? described.columns.get(job.watermark.field);
    if (!column) return;
    const subject = `${this.fieldWord(conn)} "${column.name}" of ${conn.describer.entityWord} "${entity}"`;
    let sample: { found: boolean; value?: unknown } | undefined;
    if (conn.describer.sample) {
      try {
        const value = await conn.describer.sample(entity, column.name);
        sample = { found: value !== null && value !== undefined, value };
      } catch (err) {
        this.add('jobs', at, '.watermark.field', `cannot read a value of ${subject}: ${scrubSecrets(errorMessage(err))} (${conn.label})`);
        return;
      }
    }
    const problem = watermarkColumnProblem(job.watermark.type, column, sample, subject);
    if (problem) this.add('jobs', at, '.watermark.type', `${problem} (${conn.label})`);
  }
}
