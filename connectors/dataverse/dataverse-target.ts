import { toJsonValue } from '../base/connector-base';
import type { TargetConnector, UpsertContext, UpsertResult } from '../base/target-connector';
import { applyOneByOne, type SingleTarget } from '../base/apply-one-by-one';
import type { ItemOutcome, TargetBatch } from '../base/target-batch';
import { type Job, JobActionType } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import type { JsonValue, QueueMessage } from '../../src/model/queue-message';
import type { OdataHttpClient } from '../odata/odata-http';
import { identifier, isGuid, queryString } from '../odata/odata-literals';
import { OdataTarget } from '../odata/odata-target';
import { BatchTransport } from '../odata/batch-transport';
import { BatchWriter } from '../odata/batch-writer';
import { RecordLocator, type TargetRef } from '../odata/record-locator';
import { dataverseColumns, type DataverseColumns } from './dataverse-columns';
import { withLookupBinds } from './dataverse-lookups';
import { dataverseRecord, needsColumnTypes } from './dataverse-typed-values';
import type { DataverseLookup } from './dataverse-settings';
import { GroupCommit, type ItemResult } from '../base/group-commit';
import { type BulkTable, UpsertMultiple } from './upsert-multiple';

export interface DataverseTargetOptions {
  http: OdataHttpClient;
  /** Names the connection in messages, e.g. `dataverse connection "crm"`. */
  label: string;
  lookups?: Record<string, Record<string, DataverseLookup>>;
  /** Most upserts per `$batch`; 1 sends each alone. Default 50. */
  batchSize?: number;
  /** Default `modifiedon`. */
  versionField?: string;
  /** Entity set → the table written with `UpsertMultiple` by `applyBatch`. Default: none. */
  upsertMultiple?: Record<string, BulkTable>;
  warn?: (message: string) => void;
}

interface Upsert {
  path: string;
  body: Record<string, JsonValue>;
  returning: string[];
}

/**
 * Dataverse Web API target. Upsert is one `PATCH` on the record's key — the primary key
 * (`accounts(<guid>)`) or an alternate key (`accounts(accountnumber='A-1')`) — which creates the
 * record when it does not exist; lookups are bound with `@odata.bind`. Upserts that arrive while
 * another request is in flight are sent together as one `$batch` (independent requests,
 * `Prefer: odata.continue-on-error`), each keeping its own result or error. Delete, actions
 * (`accounts/Microsoft.Dynamics.CRM.<Action>` bound, `<Action>` unbound) and versions as the
 * OData target in `patch` mode.
 */
export class DataverseTarget implements TargetConnector, SingleTarget {
  private readonly base: OdataTarget;
  private readonly locator: RecordLocator;
  private readonly batcher: GroupCommit<Upsert, Record<string, unknown> | undefined>;
  private readonly writer: BatchWriter;
  private readonly transport: BatchTransport;
  private readonly bulk: UpsertMultiple;
  /** Column types per entity set, read once a message carries digits or bytes (then for every set written). */
  private readonly columns = new Map<string, DataverseColumns>();
  private typesWanted = false;

  constructor(private readonly options: DataverseTargetOptions) {
    const bareSingleKey = (_name: string, value: unknown) => isGuid(value);
    this.base = new OdataTarget({ http: options.http, label: options.label, upsertMode: 'patch', versionField: options.versionField ?? 'modifiedon', bareSingleKey });
    this.locator = new RecordLocator({ http: options.http, bareSingleKey });
    this.batcher = new GroupCommit({ sendOne: (u) => this.sendOne(u), sendMany: (us) => this.sendMany(us), maxSize: options.batchSize ?? 50 });
    const body = (message: QueueMessage, target: TargetRef) => this.body(message, target);
    this.transport = new BatchTransport({ http: options.http, format: 'multipart', maxOperations: options.batchSize ?? 50, absoluteUrls: true });
    this.writer = new BatchWriter({ transport: this.transport, locator: this.locator, mode: 'patch', body, versionField: (mapping) => this.versionField(mapping) });
    this.bulk = new UpsertMultiple({ http: options.http, locator: this.locator, body, warn: options.warn });
  }

  async upsert(message: QueueMessage, mapping: Mapping, context: UpsertContext = {}): Promise<UpsertResult> {
    await this.readColumns(mapping, [message]);
    const target = this.locator.target(message, mapping);
    const upsert: Upsert = {
      path: this.locator.directPath(target),
      body: this.body(message, target),
      returning: (context.responseMapping ?? []).map((r) => identifier(r.from, `mapping "${mapping.name}": responseMapping.from`)),
    };
    const written = await this.batcher.submit(upsert);
    if (upsert.returning.length === 0) return {};
    const source = written ?? (await this.read(upsert));
    return { returned: Object.fromEntries(upsert.returning.map((f) => [f, toJsonValue(source[f], `returned field "${f}"`)])) };
  }

  delete(message: QueueMessage, mapping: Mapping): Promise<void> {
    return this.base.delete(message, mapping);
  }

  invokeAction(message: QueueMessage, job: Job): Promise<void> {
    return this.base.invokeAction(message, job);
  }

  getTargetVersion(message: QueueMessage, mapping: Mapping): Promise<string | null> {
    return this.base.getTargetVersion(message, mapping);
  }

  /**
   * A group of upserts: `UpsertMultiple` for tables configured so (no version check and no
   * response fields, which it cannot do), else `$batch` of PATCH requests on the keys
   * (`If-Match` / `If-None-Match: *` under a version check); deletes through `$batch` too.
   * Actions go one by one.
   */
  async applyBatch(batch: TargetBatch): Promise<ItemOutcome[]> {
    if (batch.action === JobActionType.InvokeAction) return applyOneByOne(this, batch, 50);
    if (batch.action === JobActionType.NewUpdate) await this.readColumns(batch.mapping, batch.messages);
    const perItem = (subset: TargetBatch) => this.writer.apply(subset, `${subset.action === JobActionType.Delete ? 'delete' : 'upsert'} ${subset.messages.length} records of ${subset.mapping.target.entity}`);
    const table = this.options.upsertMultiple?.[batch.mapping.target.entity];
    const bulk = batch.action === JobActionType.NewUpdate && table && !batch.versionCheck && (batch.responseMapping ?? []).length === 0 && this.bulk.usable(batch.mapping.target.entity);
    if (!bulk) return perItem(batch);
    return this.bulk.apply(batch, table, (messages) => perItem({ ...batch, messages }));
  }

  async close(): Promise<void> {}

  /**
   * The key is in the URL; Dataverse refuses a body that sets an alternate key's columns differently.
   * Values typed by the set's columns when they were read (dataverse-typed-values.ts).
   * @throws PermanentError for a value its column cannot take.
   */
  private body(message: QueueMessage, target: TargetRef): Record<string, JsonValue> {
    const fields = { ...message.fields };
    for (const [key] of target.keys) delete fields[key];
    return withLookupBinds(dataverseRecord(fields, this.columns.get(target.set), target.set), target.set, this.options.lookups);
  }

  /**
   * The target set's column types, read (once per set) from the first message that carries a
   * digit string or bytes on: before that, values go as the JSON says, which types would not change.
   */
  private async readColumns(mapping: Mapping, messages: readonly QueueMessage[]): Promise<void> {
    const set = mapping.target.entity;
    if (this.columns.has(set)) return;
    if (!this.typesWanted && !messages.some((m) => needsColumnTypes(m.fields))) return;
    this.typesWanted = true;
    this.columns.set(set, await dataverseColumns(this.options.http, identifier(set, `mapping "${mapping.name}": target.entity`)));
  }

  private versionField(mapping: Mapping): string {
    return identifier(mapping.target.versionField ?? this.options.versionField ?? 'modifiedon', `${this.options.label}: versionField`);
  }

  private headers(upsert: Upsert): Record<string, string> | undefined {
    return upsert.returning.length > 0 ? { Prefer: 'return=representation' } : undefined;
  }

  private async sendOne(upsert: Upsert): Promise<Record<string, unknown> | undefined> {
    const response = await this.options.http.request({ method: 'PATCH', url: upsert.path, body: upsert.body, headers: this.headers(upsert), operation: `upsert ${upsert.path}` });
    return response.body;
  }

  /** Upserts sent together: one `$batch` of independent requests, each keeping its own answer (see {@link BatchTransport}). */
  private async sendMany(upserts: Upsert[]): Promise<Array<ItemResult<Record<string, unknown> | undefined>>> {
    const ops = upserts.map((u) => ({ method: 'PATCH' as const, url: u.path, headers: this.headers(u), body: u.body, operation: `upsert ${u.path}` }));
    const answers = await this.transport.send(ops, 'upsert');
    return answers.map((a) => (a.error ? { ok: false, error: a.error } : { ok: true, value: a.body }));
  }

  private async read(upsert: Upsert): Promise<Record<string, unknown>> {
    const response = await this.options.http.request({
      method: 'GET', url: `${upsert.path}${queryString([['$select', upsert.returning.join(',')]])}`, operation: `read ${upsert.path}`,
    });
    return response.body ?? {};
  }
}
