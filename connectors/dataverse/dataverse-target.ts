import { randomUUID } from 'node:crypto';
import { toJsonValue } from '../base/connector-base';
import type { TargetConnector, UpsertContext, UpsertResult } from '../base/target-connector';
import { applyOneByOne, type ItemOutcome, type TargetBatch } from '../base/target-batch';
import { TransientError } from '../../src/model/errors';
import type { Job } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import type { JsonValue, QueueMessage } from '../../src/model/queue-message';
import { classifyHttpFailure, parseErrorBody } from '../odata/odata-errors';
import type { OdataHttpClient } from '../odata/odata-http';
import { identifier, isGuid, queryString } from '../odata/odata-literals';
import { OdataTarget } from '../odata/odata-target';
import { RecordLocator } from '../odata/record-locator';
import { type BatchAnswer, boundaryOf, buildBatch, parseBatch } from './batch-multipart';
import { withLookupBinds } from './dataverse-lookups';
import type { DataverseLookup } from './dataverse-settings';
import { GroupCommit, type ItemResult } from './group-commit';

export interface DataverseTargetOptions {
  http: OdataHttpClient;
  /** Names the connection in messages, e.g. `dataverse connection "crm"`. */
  label: string;
  lookups?: Record<string, Record<string, DataverseLookup>>;
  /** Most upserts per `$batch`; 1 sends each alone. Default 50. */
  batchSize?: number;
  /** Default `modifiedon`. */
  versionField?: string;
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
export class DataverseTarget implements TargetConnector {
  private readonly base: OdataTarget;
  private readonly locator: RecordLocator;
  private readonly batcher: GroupCommit<Upsert, Record<string, unknown> | undefined>;

  constructor(private readonly options: DataverseTargetOptions) {
    const bareSingleKey = (_name: string, value: unknown) => isGuid(value);
    this.base = new OdataTarget({ http: options.http, label: options.label, upsertMode: 'patch', versionField: options.versionField ?? 'modifiedon', bareSingleKey });
    this.locator = new RecordLocator({ http: options.http, bareSingleKey });
    this.batcher = new GroupCommit({ sendOne: (u) => this.sendOne(u), sendMany: (us) => this.sendMany(us), maxSize: options.batchSize ?? 50 });
  }

  async upsert(message: QueueMessage, mapping: Mapping, context: UpsertContext = {}): Promise<UpsertResult> {
    const target = this.locator.target(message, mapping);
    const record: Record<string, JsonValue> = { ...Object.fromEntries(target.keys), ...message.fields };
    // The key is in the URL; Dataverse refuses a body that sets an alternate key's columns differently.
    for (const [key] of target.keys) delete record[key];
    const upsert: Upsert = {
      path: this.locator.directPath(target),
      body: withLookupBinds(record, target.set, this.options.lookups),
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

  /** Concurrent upserts, which the group commit joins into `$batch` requests (UpsertMultiple is planned). */
  applyBatch(batch: TargetBatch): Promise<ItemOutcome[]> {
    return applyOneByOne(this, batch, 50);
  }

  async close(): Promise<void> {}

  private headers(upsert: Upsert): Record<string, string> | undefined {
    return upsert.returning.length > 0 ? { Prefer: 'return=representation' } : undefined;
  }

  private async sendOne(upsert: Upsert): Promise<Record<string, unknown> | undefined> {
    const response = await this.options.http.request({ method: 'PATCH', url: upsert.path, body: upsert.body, headers: this.headers(upsert), operation: `upsert ${upsert.path}` });
    return response.body;
  }

  private async sendMany(upserts: Upsert[]): Promise<Array<ItemResult<Record<string, unknown> | undefined>>> {
    const root = await this.options.http.serviceRoot();
    const boundary = `batch_${randomUUID()}`;
    const text = buildBatch(boundary, upserts.map((u) => ({ method: 'PATCH', url: new URL(u.path, root).href, headers: this.headers(u), body: u.body })));
    const response = await this.options.http.request({
      method: 'POST',
      url: '$batch',
      rawBody: { contentType: `multipart/mixed; boundary=${boundary}`, text },
      headers: { Prefer: 'odata.continue-on-error' },
      operation: `upsert ${upserts.length} records ($batch)`,
    });
    const answerBoundary = boundaryOf(response.headers.get('content-type'));
    if (!answerBoundary) throw new TransientError(`${this.options.label}: $batch: the answer is not multipart`);
    const answers = parseBatch(response.text, answerBoundary);
    return upserts.map((u, i) => this.result(u, answers[i]));
  }

  private result(upsert: Upsert, answer: BatchAnswer | undefined): ItemResult<Record<string, unknown> | undefined> {
    if (!answer) return { ok: false, error: new TransientError(`${this.options.label}: upsert ${upsert.path} ($batch): no answer`) };
    if (answer.status < 300) return { ok: true, value: jsonObject(answer.body) };
    const { message, serviceCode } = parseErrorBody(answer.body, answer.statusText);
    const error = classifyHttpFailure({ method: 'PATCH', status: answer.status, message, serviceCode }, { operation: `${this.options.label}: upsert ${upsert.path} ($batch)`, redact: (t) => this.options.http.redact(t) });
    return { ok: false, error };
  }

  private async read(upsert: Upsert): Promise<Record<string, unknown>> {
    const response = await this.options.http.request({
      method: 'GET', url: `${upsert.path}${queryString([['$select', upsert.returning.join(',')]])}`, operation: `read ${upsert.path}`,
    });
    return response.body ?? {};
  }
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = text === '' ? undefined : JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
