import { toJsonValue } from '../base/connector-base';
import { plainRecord } from '../../src/model/exact-values';
import { toText } from '../base/operations';
import { isItemError, type ItemOutcome, type TargetBatch, versionRefuses } from '../base/target-batch';
import { JobActionType } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import type { JsonValue, QueueMessage } from '../../src/model/queue-message';
import type { BatchOperation, BatchTransport, OperationAnswer } from './batch-transport';
import { hasIfMatch } from './odata-errors';
import { identifier, queryString } from './odata-literals';
import type { FoundRecord, RecordLocator, TargetRef } from './record-locator';
import { typedRecord } from './typed-values';

/** Which write a body is for: a POST (`create`), a PATCH of a found record (`update`), a PATCH that upserts (`upsert`). */
export type WriteKind = 'create' | 'update' | 'upsert';

export interface BatchWriterOptions {
  transport: BatchTransport;
  locator: RecordLocator;
  /** `read-then-write`: find by the target key, then PATCH with `If-Match` or POST; `patch`: PATCH on the key (the service upserts). */
  mode: 'read-then-write' | 'patch';
  /** The version property of a mapping, for a version check; throws a ConfigError when there is none. */
  versionField: (mapping: Mapping) => string;
  /** The request body of a write. Default: the target key and the fields; an update leaves the entity key out. */
  body?: (message: QueueMessage, target: TargetRef, kind: WriteKind) => Record<string, JsonValue>;
  /** Read-and-write rounds of an item whose record changed in between (412). Default 3. */
  maxRounds?: number;
}

interface Item {
  index: number;
  message: QueueMessage;
  target: TargetRef;
  /** What the read found: the record, or null when there is none; undefined when not read. */
  found?: FoundRecord | null;
}

/**
 * Applies a group of upserts or deletes in a few requests: one read of every record (when the
 * mode or the version check needs it), one write of every record, each write conditional on the
 * ETag read (`If-Match`) or on the record's absence (`If-None-Match: *`, `patch` mode; a POST
 * cannot overwrite). A write refused with 412 means someone wrote in between: the item is read
 * and decided again, at most `maxRounds` times. Response fields come from the write's answer
 * (`Prefer: return=representation`), else from one more read.
 */
export class BatchWriter {
  constructor(private readonly options: BatchWriterOptions) {}

  /** @param types the target set's property types (`$metadata`), when read: keys and bodies are typed by them. */
  async apply(batch: TargetBatch, what: string, types?: ReadonlyMap<string, string>): Promise<ItemOutcome[]> {
    const outcomes = new Array<ItemOutcome>(batch.messages.length);
    const returning = (batch.responseMapping ?? []).map((r) => identifier(r.from, `mapping "${batch.mapping.name}": responseMapping.from`));
    const versionField = batch.versionCheck && batch.action === JobActionType.NewUpdate ? this.options.versionField(batch.mapping) : undefined;
    const isDelete = batch.action === JobActionType.Delete;
    const needRead = this.options.mode === 'read-then-write' || versionField !== undefined;
    const progress = { applied: false };
    let pending: Item[] = [];
    batch.messages.forEach((message, index) => {
      try {
        pending.push({ index, message, target: this.options.locator.target(message, batch.mapping, types) });
      } catch (error) {
        outcomes[index] = { status: 'failed', error };
      }
    });
    const readBack: Item[] = [];
    for (let round = 1; pending.length > 0; round++) {
      if (needRead) pending = await this.read(pending, versionField ? [versionField] : [], outcomes, progress, what);
      const writes: Array<{ item: Item; op: BatchOperation; create: boolean }> = [];
      for (const item of pending) {
        if (isDelete && item.found === null) outcomes[item.index] = { status: 'applied' };
        else if (isDelete) writes.push({ item, op: this.deleteOp(item), create: false });
        else {
          const version = versionField && item.found ? item.found.row[versionField] : undefined;
          if (batch.versionCheck && version !== undefined && version !== null && versionRefuses(batch.versionCheck.type, item.message.changeTracker, toText(version))) {
            outcomes[item.index] = { status: 'outdated', targetVersion: toText(version) };
          } else {
            // A value its property's type cannot take (typed by $metadata) fails its item alone.
            try {
              writes.push({ item, ...this.writeOp(item, returning.length > 0, versionField !== undefined) });
            } catch (error) {
              outcomes[item.index] = { status: 'failed', error };
            }
          }
        }
      }
      const answers = await this.send(writes.map((w) => w.op), progress, what);
      const again: Item[] = [];
      writes.forEach(({ item, op, create }, i) => {
        const answer = answers[i];
        if (!answer.error || (isDelete && answer.status === 404)) {
          progress.applied = true;
          const body = answer.body;
          if (returning.length === 0) outcomes[item.index] = { status: 'applied' };
          else if (body && returning.every((f) => f in body)) outcomes[item.index] = withReturned(body, returning);
          else readBack.push(item);
        } else if (round < (this.options.maxRounds ?? 3) && changedSinceRead(answer, op, create)) again.push(item);
        else outcomes[item.index] = { status: 'failed', error: answer.error };
      });
      pending = again;
    }
    if (readBack.length > 0) await this.readBack(readBack, returning, outcomes, progress, what);
    // Nothing applied and every item failed for a reason of the whole group: the group is retried.
    if (outcomes.length > 0 && outcomes.every((o) => o.status === 'failed' && !isItemError(o.error))) throw (outcomes[0] as { error: unknown }).error;
    return outcomes;
  }

  /** Reads every item's record; returns the items read, an item whose read failed takes the error as its outcome. */
  private async read(items: Item[], select: string[], outcomes: ItemOutcome[], progress: { applied: boolean }, what: string): Promise<Item[]> {
    const answers = await this.send(items.map((item) => this.readOp(item, select)), progress, what);
    return items.filter((item, i) => {
      try {
        item.found = this.located(item, answers[i]);
        return true;
      } catch (error) {
        outcomes[item.index] = { status: 'failed', error };
        return false;
      }
    });
  }

  private async readBack(items: Item[], returning: string[], outcomes: ItemOutcome[], progress: { applied: boolean }, what: string): Promise<void> {
    const answers = await this.send(items.map((item) => this.readOp(item, returning)), progress, what);
    items.forEach((item, i) => {
      try {
        outcomes[item.index] = withReturned(this.located(item, answers[i])?.row ?? {}, returning);
      } catch (error) {
        outcomes[item.index] = { status: 'failed', error };
      }
    });
  }

  /** Sends a round; a whole failure after something was applied becomes every operation's answer (nothing of it is retried apart). */
  private async send(ops: BatchOperation[], progress: { applied: boolean }, what: string): Promise<OperationAnswer[]> {
    try {
      return await this.options.transport.send(ops, what);
    } catch (error) {
      if (!progress.applied) throw error;
      return ops.map(() => ({ status: 0, headers: {}, body: undefined, error: error as OperationAnswer['error'] }));
    }
  }

  private readOp(item: Item, select: string[]): BatchOperation {
    const { locator } = this.options;
    if (this.options.mode === 'read-then-write') {
      return { method: 'GET', url: locator.findUrl(item.target, select), operation: `find ${item.target.set} by ${item.target.keys.map(([k]) => k).join(', ')}` };
    }
    const path = locator.directPath(item.target);
    return { method: 'GET', url: `${path}${queryString([['$select', select.join(',')]])}`, operation: `read ${path}` };
  }

  /** The record an answer of {@link readOp} holds: null when there is none. Throws the answer's error. */
  private located(item: Item, answer: OperationAnswer): FoundRecord | null {
    if (this.options.mode === 'patch' && answer.status === 404) return null;
    if (answer.error) throw answer.error;
    const body = answer.body ?? {};
    if (this.options.mode === 'read-then-write') return this.options.locator.foundIn(item.target, Array.isArray(body.value) ? (body.value as Array<Record<string, unknown>>) : []) ?? null;
    const etag = body['@odata.etag'] ?? answer.headers.etag;
    return { path: this.options.locator.directPath(item.target), etag: typeof etag === 'string' ? etag : undefined, row: body };
  }

  private writeOp(item: Item, representation: boolean, conditional: boolean): { op: BatchOperation; create: boolean } {
    const headers: Record<string, string> = representation ? { Prefer: 'return=representation' } : {};
    const { found, target } = item;
    if (this.options.mode === 'read-then-write' && !found) {
      return { op: { method: 'POST', url: target.set, headers, body: this.body(item, 'create'), operation: `create in ${target.set}` }, create: true };
    }
    if (this.options.mode === 'read-then-write') {
      headers['If-Match'] = ifMatchOf(found!);
      return { op: { method: 'PATCH', url: found!.path, headers, body: this.body(item, 'update'), operation: `update ${found!.path}` }, create: false };
    }
    const path = this.options.locator.directPath(target);
    // Under a version check a create must not overwrite a record created in between.
    if (conditional && found === null) headers['If-None-Match'] = '*';
    if (conditional && found?.etag) headers['If-Match'] = found.etag;
    return { op: { method: 'PATCH', url: path, headers, body: this.body(item, 'upsert'), operation: `upsert ${path}` }, create: found === null };
  }

  private deleteOp(item: Item): BatchOperation {
    const path = item.found?.path ?? this.options.locator.directPath(item.target);
    const headers = item.found ? { 'If-Match': ifMatchOf(item.found) } : undefined;
    return { method: 'DELETE', url: path, headers, operation: `delete ${path}` };
  }

  private body(item: Item, kind: WriteKind): Record<string, JsonValue> {
    if (this.options.body) return this.options.body(item.message, item.target, kind);
    const plain = plainRecord({ ...Object.fromEntries(item.target.keys), ...item.message.fields }); // bytes as base64 (Edm.Binary)
    const record = typedRecord(plain, item.target.types, item.target.set) as Record<string, JsonValue>;
    if (kind === 'update') for (const key of this.options.locator.entityKey(item.target)) delete record[key];
    return record;
  }
}

/**
 * Whether a write failed because the record changed between the read and the write, so that the
 * item is read and decided again: 412 (another ETag), 409 on a create (created meanwhile), 404
 * on an update conditional on what was read (deleted meanwhile: the next round creates it).
 */
function changedSinceRead(answer: OperationAnswer, op: BatchOperation, create: boolean): boolean {
  if (answer.status === 412) return true;
  if (create) return answer.status === 409;
  return answer.status === 404 && op.method === 'PATCH' && hasIfMatch(op.headers);
}

/** Applied, with the response fields of the written record (a value that is no JSON fails the item). */
function withReturned(source: Record<string, unknown>, fields: string[]): ItemOutcome {
  try {
    return { status: 'applied', returned: Object.fromEntries(fields.map((f) => [f, toJsonValue(source[f], `returned field "${f}"`)])) };
  } catch (error) {
    return { status: 'failed', error };
  }
}

/**
 * The `If-Match` of a write to a record that was read: its ETag, or `*` when it has none (a row
 * written behind the service's back). `*` still says "only if it exists", and a service that
 * requires a precondition (CAP with an ETag element, Business Central) answers 428 without one.
 */
export function ifMatchOf(found: { etag?: string }): string {
  return found.etag ?? '*';
}
