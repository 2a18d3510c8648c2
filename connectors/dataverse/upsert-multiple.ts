import { isItemError, type ItemOutcome, type TargetBatch } from '../base/target-batch';
import type { JsonValue, QueueMessage } from '../../src/model/queue-message';
import { statusOf } from '../odata/delta-reader';
import type { OdataHttpClient } from '../odata/odata-http';
import { identifier } from '../odata/odata-literals';
import type { RecordLocator, TargetRef } from '../odata/record-locator';

/** A table written with `UpsertMultiple`: its logical name (the records' `@odata.type`) and the most records per request. */
export interface BulkTable {
  logicalName: string;
  /** Default 1000 (Microsoft's starting point for standard tables; 100 for elastic tables). */
  maxRecords?: number;
  /** An elastic table: a refused request may have applied part of its records (see {@link failedRecords}). Default false. */
  elastic?: boolean;
}

/** The error annotation listing the records an elastic-table bulk request did not apply. */
const BULK_ERROR_DETAILS = '@Microsoft.PowerApps.CDS.ErrorDetails.Plugin.BulkApiErrorDetails';
/** Asks Dataverse for that annotation (it is only sent when asked for). */
const WITH_ERROR_DETAILS = { Prefer: 'odata.include-annotations="Microsoft.PowerApps.CDS.ErrorDetails.*"' };

/**
 * The positions (in `Targets`) of the records a refused bulk request on an elastic table did not
 * apply, from the error's `BulkApiErrorDetails` (a JSON text of `{ RequestIndex, Id, StatusCode }`;
 * the SDK's `ErrorDetails["Plugin.BulkApiErrorDetails"]`); the others were applied. Undefined
 * when the answer has no such list or one that does not fit `count` records: then nothing is
 * known to be applied.
 */
export function failedRecords(text: string, count: number): Set<number> | undefined {
  let details: unknown;
  try {
    const error = (JSON.parse(text) as { error?: Record<string, unknown> })?.error;
    const value = error?.[BULK_ERROR_DETAILS];
    details = typeof value === 'string' ? JSON.parse(value) : value;
  } catch {
    return undefined;
  }
  if (!Array.isArray(details) || details.length === 0) return undefined;
  const failed = new Set<number>();
  for (const detail of details) {
    const index = (detail as { RequestIndex?: unknown } | null)?.RequestIndex;
    if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0 || index >= count) return undefined;
    failed.add(index);
  }
  return failed;
}

export interface UpsertMultipleOptions {
  http: OdataHttpClient;
  locator: RecordLocator;
  /** The record body of an upsert (key columns out, lookups bound). */
  body: (message: QueueMessage, target: TargetRef) => Record<string, JsonValue>;
  warn?: (message: string) => void;
}

/** Runs a subset of a group as `$batch` requests: the fallback that gives each record its own status. */
export type PerItemFallback = (messages: readonly QueueMessage[]) => Promise<ItemOutcome[]>;

/**
 * Dataverse `UpsertMultiple` (`POST <set>/Microsoft.Dynamics.CRM.UpsertMultiple`, records named by
 * `@odata.id`): one request and one service-protection count for up to 1,000 records. On a
 * standard table one bad record fails the whole request, so a data error sends that chunk
 * through the per-item fallback (`$batch`); on an elastic table (`elastic: true`) a refused request
 * may have applied part of its records and names the others, and only those go through `$batch`
 * (Microsoft: "Use bulk operation messages", on-error behaviour); a table that turns out not to support the message
 * (404, or a 400 naming UpsertMultiple as unsupported) is remembered and always falls back.
 */
export class UpsertMultiple {
  private readonly unsupported = new Set<string>();

  constructor(private readonly options: UpsertMultipleOptions) {}

  /** Whether the entity set may be written with UpsertMultiple (not yet refused by the service). */
  usable(entitySet: string): boolean {
    return !this.unsupported.has(entitySet);
  }

  async apply(batch: TargetBatch, table: BulkTable, fallback: PerItemFallback): Promise<ItemOutcome[]> {
    const outcomes = new Array<ItemOutcome>(batch.messages.length);
    const size = table.maxRecords ?? 1000;
    let applied = false;
    for (let from = 0; from < batch.messages.length; from += size) {
      const indexes = Array.from({ length: Math.min(size, batch.messages.length - from) }, (_, i) => from + i);
      try {
        const chunk = await this.chunk(batch, table, indexes, outcomes, fallback);
        indexes.forEach((index, i) => (outcomes[index] ??= chunk[i]));
        applied ||= chunk.some((o) => o.status === 'applied');
      } catch (error) {
        // A whole-request failure after an earlier chunk was applied: this chunk's items fail alone.
        if (!applied) throw error;
        for (const index of indexes) outcomes[index] ??= { status: 'failed', error };
      }
    }
    return outcomes;
  }

  /** One request for the chunk; outcomes per index of `indexes` (items that cannot be built are set in `outcomes`). */
  private async chunk(batch: TargetBatch, table: BulkTable, indexes: number[], outcomes: ItemOutcome[], fallback: PerItemFallback): Promise<ItemOutcome[]> {
    const set = identifier(batch.mapping.target.entity, `mapping "${batch.mapping.name}": target.entity`);
    const type = `Microsoft.Dynamics.CRM.${identifier(table.logicalName, `settings.upsertMultiple.${set}.logicalName`)}`;
    const targets: Array<Record<string, JsonValue>> = [];
    const sent: number[] = [];
    for (const index of indexes) {
      try {
        const target = this.options.locator.target(batch.messages[index], batch.mapping);
        targets.push({ '@odata.type': type, '@odata.id': this.options.locator.directPath(target), ...this.options.body(batch.messages[index], target) });
        sent.push(index);
      } catch (error) {
        outcomes[index] = { status: 'failed', error };
      }
    }
    if (sent.length === 0) return indexes.map((i) => outcomes[i]);
    const viaFallback = async () => {
      const results = await fallback(sent.map((i) => batch.messages[i]));
      return indexes.map((i) => outcomes[i] ?? results[sent.indexOf(i)]);
    };
    if (!this.usable(set)) return viaFallback();
    // Elastic tables: a 4xx that names the records it did not apply is a partial success (throttling is not).
    let failed: Set<number> | undefined;
    const partial = table.elastic
      ? {
          headers: WITH_ERROR_DETAILS,
          acceptFailure: (status: number, text: string) => status >= 400 && status < 500 && status !== 429 && (failed = failedRecords(text, sent.length)) !== undefined,
        }
      : {};
    try {
      await this.options.http.request({ method: 'POST', url: `${set}/Microsoft.Dynamics.CRM.UpsertMultiple`, body: { Targets: targets }, operation: `UpsertMultiple ${sent.length} records of ${set}`, ...partial });
    } catch (error) {
      if (refusesMessage(error)) {
        this.unsupported.add(set);
        this.options.warn?.(`${this.options.http.label}: ${set} does not support UpsertMultiple; writing it with $batch from now on`);
        return viaFallback();
      }
      // One bad record failed the request (standard tables): $batch tells which.
      if (isItemError(error)) return viaFallback();
      throw error;
    }
    if (failed) {
      // Only the records it names go again, through $batch: each gets its own status and error text.
      const named = failed;
      const again = sent.filter((_, position) => named.has(position));
      const results = await fallback(again.map((i) => batch.messages[i]));
      const redone = new Map(again.map((index, k) => [index, results[k]]));
      return indexes.map((i) => outcomes[i] ?? redone.get(i) ?? { status: 'applied' });
    }
    return indexes.map((i) => outcomes[i] ?? { status: 'applied' });
  }
}

/** Whether an error says the table has no UpsertMultiple message (rather than that a record is bad). */
function refusesMessage(error: unknown): boolean {
  const status = statusOf(error);
  const message = error instanceof Error ? error.message : '';
  if (status === 404 || status === 405 || status === 501) return true;
  return status === 400 && /UpsertMultiple/i.test(message) && /not (enabled|supported|found|available)|does not support|could not find/i.test(message);
}
