import type { ConnectorContext } from '../../../../connectors/base/connector-context';
import { ConnectorRegistry } from '../../../../connectors/base/registry';
import type { SourceConnector, SourcePage } from '../../../../connectors/base/source-connector';
import type { TargetConnector } from '../../../../connectors/base/target-connector';
import { createOdataConnectorFactory } from '../../../../connectors/odata';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import type { QueueMessage } from '../../../../src/model/queue-message';
import type { WatermarkValue } from '../../../../src/model/watermark-value';
import type { CapServer } from './cap-server';
import { singleTarget } from '../../../support/single-target';

/** A clock whose sleeps return at once and are recorded (throttling waits). */
export function instantClock(start = '2026-06-01T00:00:00Z') {
  const sleeps: number[] = [];
  return { sleeps, now: () => new Date(start), sleep: async (ms: number) => void sleeps.push(ms) };
}

export interface OpenOptions {
  settings?: Record<string, unknown>;
  clock?: ConnectorContext['clock'];
  warnings?: string[];
  maxConcurrency?: number;
}

/** Source and target connectors of an `odata` connection opened through the registry (settings validated). */
export function openOdata(serviceUrl: string, options: OpenOptions = {}) {
  const registry = new ConnectorRegistry([createOdataConnectorFactory()]);
  const opened: Array<SourceConnector | TargetConnector> = [];
  const ctx = (): ConnectorContext => ({
    connection: { name: 'catalog', type: 'odata', settings: { serviceUrl, ...options.settings }, secrets: {}, maxConcurrency: options.maxConcurrency ?? 4 },
    resolveSecret: () => undefined,
    configDir: __dirname,
    clock: options.clock,
    warn: (m) => options.warnings?.push(m),
  });
  return {
    source: () => {
      const source = registry.createSource(ctx());
      opened.push(source);
      return source;
    },
    target: () => {
      const target = singleTarget(registry.createTarget(ctx()));
      opened.push(target);
      return target;
    },
    close: () => Promise.all(opened.map((c) => c.close())),
  };
}

export const booksJob: Job = {
  name: 'books', order: 1, schedule: '0 * * * * *', enabled: true, source: 'catalog', target: 't', mapping: 'books',
  priority: 'normal', watermark: { type: 'datetime', field: 'modifiedAt' }, filter: [], action: JobActionType.NewUpdate,
  skipOutdatedMessages: false, skipUnchanged: false, pageSize: 2, lookbackSeconds: 0,
};

export const booksMapping: Mapping = {
  name: 'books',
  source: { entity: 'Books', key: ['ID'] },
  target: { entity: 'book', key: ['id'] },
  fields: [
    { target: 'id', source: 'ID' },
    { target: 'title', source: 'title', operations: [{ op: 'upper' }] },
    { target: 'stock', source: 'stock' },
  ],
};

export const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();

export interface BookRow {
  ID: number;
  title?: string;
  author?: string;
  stock?: number;
  /** Null: a row written behind CAP's back, without its ETag. */
  modifiedAt: string | null;
}

/** Replaces every book on the server. */
export async function seedBooks(server: CapServer, rows: BookRow[]): Promise<void> {
  await server.sql('DELETE FROM hw_Books');
  for (const r of rows) {
    await server.sql('INSERT INTO hw_Books (ID, title, author, stock, modifiedAt) VALUES (?, ?, ?, ?, ?)', [
      r.ID, r.title ?? `Book ${r.ID}`, r.author ?? 'anon', r.stock ?? 1, r.modifiedAt,
    ]);
  }
}

/** Reads a whole run and advances the watermark over it, as detection does. */
export async function readRun(source: SourceConnector, mapping: Mapping, job: Job, watermark: WatermarkValue) {
  const pages: SourcePage[] = [];
  for await (const page of source.retrieveChanges(mapping, job, watermark)) pages.push(page);
  const messages: QueueMessage[] = pages.flatMap((p) => p.messages);
  for (const page of pages) {
    for (const m of page.messages) watermark.advance(m.changeTracker);
    for (const t of page.timeStamps) watermark.advance(t.changeTracker);
  }
  return { pages, messages };
}

export const ids = (messages: Array<{ sourceKey: string }>) => messages.map((m) => Number(m.sourceKey));
