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
 * through the per-item fallback (`$batch`); a table that turns out not to support the message
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
    try {
      await this.options.http.request({ method: 'POST', url: `${set}/Microsoft.Dynamics.CRM.UpsertMultiple`, body: { Targets: targets }, operation: `UpsertMultiple ${sent.length} records of ${set}` });
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
