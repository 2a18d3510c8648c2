import { toJsonValue } from '../base/connector-base';
import { JSON_TEXT_TAG, plainRecord, taggedOf } from '../../src/model/exact-values';
import { toText } from '../base/operations';
import type { TargetConnector, UpsertContext, UpsertResult } from '../base/target-connector';
import { applyOneByOne, type SingleTarget } from '../base/apply-one-by-one';
import type { ItemOutcome, TargetBatch } from '../base/target-batch';
import { ConfigError, TransitiveError } from '../../src/platform/errors';
import { type Job, JobActionType } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import type { QueueMessage } from '../../src/model/queue-message';
import { type BatchFormat, BatchTransport } from './batch-transport';
import { BatchWriter, ifMatchOf } from './batch-writer';
import type { OdataHttpClient, OdataResponse } from './odata-http';
import { identifier, qualifiedName, queryString } from './odata-literals';
import { type FoundRecord, keyValues, type LocatorOptions, RecordLocator, type TargetRef } from './record-locator';
import { optionalServiceModel } from './service-model';
import { propertyTypes, typedRecord } from './typed-values';

export interface OdataTargetOptions extends Omit<LocatorOptions, 'http'> {
  http: OdataHttpClient;
  /** Names the connection in configuration errors, e.g. `odata connection "catalog"`. */
  label: string;
  /** `read-then-write` (find, then PATCH with If-Match or POST) or `patch` (one PATCH; the service upserts). Default `read-then-write`. */
  upsertMode?: 'read-then-write' | 'patch';
  /** Target property for `getTargetVersion` when the mapping names none. */
  versionField?: string;
  /** How `applyBatch` sends a group: one `$batch` (`json`, `multipart`) or single requests (`off`). Default `off`. */
  batchFormat?: BatchFormat;
  /** Most operations per `$batch`. Default 100. */
  batchSize?: number;
  /** Multipart `$batch` parts carry absolute URLs. Default false. */
  absoluteBatchUrls?: boolean;
  /**
   * Read the service's `$metadata` (once per connection) and write keys, filters and bodies by
   * the property types (typed-values.ts). Without a usable document: untyped, with a warning.
   * `when-needed`: read it only once a message carries a string of digits or a JSON document's
   * exact text (the only values whose form depends on the type: Int64/Decimal digits or text, a
   * document or its text), for services whose document is large. Default false.
   */
  typedValues?: boolean | 'when-needed';
  /** Where `$metadata` is, relative to the service root. Default `$metadata`. */
  metadataUrl?: string;
  warn?: (message: string) => void;
}

/**
 * Applies messages to an OData V4 service. Upsert: find the record by the mapping's target key,
 * then PATCH it (with `If-Match: <its ETag>` when it has one) or POST it; or, in `patch` mode, one
 * PATCH on the key for services that upsert (Dataverse). Delete: DELETE, a missing record is
 * fine. `InvokeAction`: `actionName` `Name` calls an unbound action (`POST Name`), and
 * `EntitySet/Namespace.Name` an action bound to the message's record. Fields of a response
 * mapping come from the written record (`Prefer: return=representation`, or a read).
 */
export class OdataTarget implements TargetConnector, SingleTarget {
  private readonly locator: RecordLocator;
  private readonly writer: BatchWriter;
  /** `when-needed` typing: whether `$metadata` was asked for (it is then used for every message). */
  private typesRead = false;

  constructor(private readonly options: OdataTargetOptions) {
    this.locator = new RecordLocator(options);
    const transport = new BatchTransport({ http: options.http, format: options.batchFormat, maxOperations: options.batchSize, absoluteUrls: options.absoluteBatchUrls });
    this.writer = new BatchWriter({
      transport,
      locator: this.locator,
      mode: options.upsertMode ?? 'read-then-write',
      versionField: (mapping) => this.versionProperty(mapping),
    });
  }

  async upsert(message: QueueMessage, mapping: Mapping, context: UpsertContext = {}): Promise<UpsertResult> {
    const target = this.locator.target(message, mapping, await this.types(mapping, [message]));
    // Bytes as base64 (Edm.Binary); Int64 and Decimal digits as exact numbers when typed.
    const record = typedRecord(plainRecord({ ...Object.fromEntries(target.keys), ...message.fields }), target.types, target.set);
    const returning = (context.responseMapping ?? []).map((r) => identifier(r.from, `mapping "${mapping.name}": responseMapping.from`));
    const prefer = returning.length > 0 ? { Prefer: 'return=representation' } : undefined;
    let written: OdataResponse;
    let path: string;
    if ((this.options.upsertMode ?? 'read-then-write') === 'patch') {
      path = this.locator.directPath(target);
      written = await this.write('PATCH', path, record, prefer, `upsert ${path}`);
    } else {
      const found = await this.locator.find(target);
      if (found) {
        path = found.path;
        const changes = { ...record };
        for (const key of this.locator.entityKey(target)) delete changes[key];
        written = await this.write('PATCH', path, changes, { ...prefer, ...ifMatch(found) }, `update ${path}`);
      } else {
        written = await this.write('POST', target.set, record, prefer, `create in ${target.set}`);
        path = entityPathOf(written) ?? this.locator.directPath(target);
      }
    }
    if (returning.length === 0) return {};
    const source = written.body ?? (await this.read(path, returning));
    return { returned: Object.fromEntries(returning.map((f) => [f, toJsonValue(source[f], `returned field "${f}"`)])) };
  }

  async delete(message: QueueMessage, mapping: Mapping): Promise<void> {
    const target = this.locator.target(message, mapping, await this.types(mapping, [message]));
    if (this.options.upsertMode === 'patch') {
      const path = this.locator.directPath(target);
      await this.options.http.request({ method: 'DELETE', url: path, operation: `delete ${path}`, accept: [404] });
      return;
    }
    const found = await this.locator.find(target);
    if (!found) return;
    await this.options.http.request({ method: 'DELETE', url: found.path, headers: ifMatch(found), operation: `delete ${found.path}`, accept: [404] });
  }

  async invokeAction(message: QueueMessage, job: Job): Promise<void> {
    if (!job.actionName) throw new ConfigError(`job "${job.name}": actionName is required for InvokeAction`);
    const parameters = plainRecord({ ...(message.actionParameters ?? message.fields) });
    const slash = job.actionName.indexOf('/');
    const setName = slash < 0 ? undefined : job.actionName.slice(0, slash);
    const action = slash < 0 ? job.actionName : job.actionName.slice(slash + 1);
    const name = qualifiedName(action, `job "${job.name}": actionName`);
    if (setName === undefined) {
      await this.write('POST', name, parameters, undefined, `invoke ${name}`);
      return;
    }
    // A bound action: the message's target key names the record it is bound to.
    const target: TargetRef = {
      set: identifier(setName, `job "${job.name}": actionName`),
      keys: keyValues(message, Object.keys(message.targetKey), `job "${job.name}": target key`),
    };
    for (const [key] of target.keys) delete parameters[key];
    let path: string;
    let headers: Record<string, string> | undefined;
    if (this.options.upsertMode === 'patch') {
      path = this.locator.directPath(target);
    } else {
      const found = await this.locator.find(target);
      if (!found) throw new TransitiveError(`${setName}: no record with ${JSON.stringify(message.targetKey)} (yet) for action ${name}`);
      path = found.path;
      headers = ifMatch(found);
    }
    await this.write('POST', `${path}/${name}`, parameters, headers, `invoke ${name} on ${path}`);
  }

  async getTargetVersion(message: QueueMessage, mapping: Mapping): Promise<string | null> {
    const property = this.versionProperty(mapping);
    let row: Record<string, unknown> | undefined;
    const target = this.locator.target(message, mapping, await this.types(mapping, [message]));
    if (this.options.upsertMode === 'patch') {
      const path = this.locator.directPath(target);
      const response = await this.options.http.request({
        method: 'GET', url: `${path}${queryString([['$select', property]])}`, operation: `read the version of ${path}`, accept: [404],
      });
      row = response.status === 404 ? undefined : response.body;
    } else {
      row = (await this.locator.find(target, [property]))?.row;
    }
    const version = row?.[property];
    return version === undefined || version === null ? null : toText(version);
  }

  /**
   * Upserts and deletes through {@link BatchWriter}: a read round and a write round, each one
   * `$batch` (or concurrent single requests under `maxConcurrency` when `batchFormat` is `off`),
   * the version check inside the write (`If-Match`). Actions go one by one.
   */
  async applyBatch(batch: TargetBatch): Promise<ItemOutcome[]> {
    if (batch.action === JobActionType.InvokeAction) return applyOneByOne(this, batch);
    const verb = batch.action === JobActionType.Delete ? 'delete' : 'upsert';
    return this.writer.apply(batch, `${verb} ${batch.messages.length} records of ${batch.mapping.target.entity}`, await this.types(batch.mapping, batch.messages));
  }

  async close(): Promise<void> {}

  /** The target set's property types, when typed values are on (one `$metadata` read per connection, then kept). */
  private async types(mapping: Mapping, messages?: readonly QueueMessage[]): Promise<ReadonlyMap<string, string> | undefined> {
    const { typedValues } = this.options;
    if (!typedValues) return undefined;
    if (typedValues === 'when-needed' && !this.typesRead) {
      if (!messages?.some(needsTypes)) return undefined;
      this.typesRead = true;
    }
    return propertyTypes((await optionalServiceModel(this.options.http, this.options.warn, this.options.metadataUrl)).get(mapping.target.entity));
  }

  private versionProperty(mapping: Mapping): string {
    const field = mapping.target.versionField ?? this.options.versionField;
    if (!field) throw new ConfigError(`${this.options.label}: skipOutdatedMessages needs the target's version property: set settings.versionField`);
    return identifier(field, `${this.options.label}: versionField`);
  }

  private write(method: 'POST' | 'PATCH', url: string, body: unknown, headers: Record<string, string> | undefined, operation: string): Promise<OdataResponse> {
    return this.options.http.request({ method, url, body, headers, operation });
  }

  private async read(path: string, fields: string[]): Promise<Record<string, unknown>> {
    const response = await this.options.http.request({ method: 'GET', url: `${path}${queryString([['$select', fields.join(',')]])}`, operation: `read ${path}` });
    return response.body ?? {};
  }
}

function ifMatch(found: FoundRecord): Record<string, string> {
  return { 'If-Match': ifMatchOf(found) };
}

/** The created record's path from `OData-EntityId` or `Location`, when the service sent one. */
function entityPathOf(response: OdataResponse): string | undefined {
  return response.headers.get('odata-entityid') ?? response.headers.get('location') ?? undefined;
}

const DIGITS = /^\s*[+-]?(\d|\.\d)/;

/**
 * Whether a message carries a string starting like a number or a JSON document's exact text (in
 * its key or fields): only then does typing change what is sent.
 */
function needsTypes(message: QueueMessage): boolean {
  for (const values of [message.targetKey, message.fields]) {
    for (const key in values) {
      const value = values[key];
      if (typeof value === 'string' ? DIGITS.test(value) : typeof value === 'object' && value !== null && taggedOf(value)?.tag === JSON_TEXT_TAG) return true;
    }
  }
  return false;
}
