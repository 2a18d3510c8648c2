import { ConnectorRegistry } from '../../../connectors/base/registry';
import type { RetrieveOptions, SourceConnector, SourcePage } from '../../../connectors/base/source-connector';
import { sqlConnectorFactories } from '../../../connectors/sql';
import { BusError, type MessageBatch, type MessageBus, type OutgoingMessage } from '../../../src/bus/message-bus';
import type { Job } from '../../../src/model/job';
import type { Mapping } from '../../../src/model/mapping';
import { deserializeQueueMessage, type QueueMessage } from '../../../src/model/queue-message';
import type { WatermarkValue } from '../../../src/model/watermark-value';
import type { TableStorage, TableStore } from '../../../src/storage/table-store';

/**
 * Faults and hooks around the real adapters: each wrapper delegates to the real thing and only
 * interferes where a test arms it.
 */

/** Delegates every member of `inner`, except those in `overrides`. */
function delegate<T extends object>(inner: T, overrides: Partial<T>): T {
  return new Proxy(inner, {
    get(target, prop) {
      if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof T];
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * A real bus that records what the detection service handed to it (before the broker's
 * duplicate detection drops repeats) and whose `sendBatch` fails, when armed, once a number of
 * batches went through.
 */
export interface FlakyBus {
  bus: MessageBus;
  /** Batches sent successfully since the last {@link arm}. */
  readonly sentBatches: number;
  /** From now on, let `batches` batches through, then fail every further batch. */
  arm(batches: number): void;
  disarm(): void;
  /** Messages of the batches sent since the last call, in send order (repeats included). */
  takeHanded(): QueueMessage[];
}

export function flakyBus(inner: MessageBus): FlakyBus {
  let allowed = Infinity;
  let sent = 0;
  let handed: OutgoingMessage[] = [];
  const batches = new WeakMap<MessageBatch, { inner: MessageBatch; added: OutgoingMessage[] }>();
  const bus = delegate<MessageBus>(inner, {
    async createBatch(queue: string) {
      const batch = await inner.createBatch(queue);
      const added: OutgoingMessage[] = [];
      const recording: MessageBatch = {
        queue: batch.queue,
        get count() {
          return batch.count;
        },
        get sizeInBytes() {
          return batch.sizeInBytes;
        },
        maxSizeInBytes: batch.maxSizeInBytes,
        tryAdd(message) {
          const fits = batch.tryAdd(message);
          if (fits) added.push(message);
          return fits;
        },
      };
      batches.set(recording, { inner: batch, added });
      return recording;
    },
    async sendBatch(batch: MessageBatch) {
      if (sent >= allowed) throw new BusError('Unavailable', `test fault: bus down after ${sent} batches`);
      const entry = batches.get(batch);
      await inner.sendBatch(entry?.inner ?? batch);
      sent++;
      handed.push(...(entry?.added ?? []));
    },
  });
  return {
    bus,
    get sentBatches() {
      return sent;
    },
    arm(batches) {
      allowed = batches;
      sent = 0;
    },
    disarm() {
      allowed = Infinity;
    },
    takeHanded() {
      const taken = handed.map((m) => deserializeQueueMessage(typeof m.body === 'string' ? m.body : Buffer.from(m.body)));
      handed = [];
      return taken;
    },
  };
}

/** Real table storage whose `watermark` table refuses writes while armed (the run is cut off just before its watermark write). */
export interface FlakyStorage {
  storage: TableStorage;
  failWatermarkWrites: boolean;
}

export function flakyStorage(inner: TableStorage): FlakyStorage {
  const state: FlakyStorage = { storage: inner, failWatermarkWrites: false };
  state.storage = delegate<TableStorage>(inner, {
    async table(name: string): Promise<TableStore> {
      const table = await inner.table(name);
      if (name !== 'watermark') return table;
      return delegate<TableStore>(table, {
        async upsert(row) {
          if (state.failWatermarkWrites) throw new Error('test fault: storage down before the watermark write');
          await table.upsert(row);
        },
      });
    },
  });
  return state;
}

/** Called after the detection service has taken page `index` of a run, before the next page is read. */
export type PageHook = (page: SourcePage, index: number) => Promise<void>;

class HookedSource implements SourceConnector {
  constructor(
    private readonly inner: SourceConnector,
    private readonly hooks: { afterPage?: PageHook },
  ) {}

  async *retrieveChanges(mapping: Mapping, job: Job, watermark: WatermarkValue, options?: RetrieveOptions): AsyncIterable<SourcePage> {
    let index = 0;
    for await (const page of this.inner.retrieveChanges(mapping, job, watermark, options)) {
      yield page;
      await this.hooks.afterPage?.(page, index++);
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The real SQL connectors, with their sources calling `hooks.afterPage` between pages. */
export function hookedRegistry(hooks: { afterPage?: PageHook }): ConnectorRegistry {
  return new ConnectorRegistry(
    sqlConnectorFactories.map((factory) => {
      const createSource = factory.createSource;
      return createSource ? { ...factory, createSource: (ctx) => new HookedSource(createSource(ctx), hooks) } : factory;
    }),
  );
}
