import { OdataHttpClient } from '../../../../connectors/odata/odata-http';
import { OdataTarget, type OdataTargetOptions } from '../../../../connectors/odata/odata-target';
import type { TargetBatch } from '../../../../connectors/base/target-batch';
import { type Job, type JobAction, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage, type JsonValue, type QueueMessage } from '../../../../src/model/queue-message';
import type { WatermarkType } from '../../../../src/model/watermark-value';

interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/**
 * A `fetch` in front of the real server that records every request, counts the requests in
 * flight, and lets a test answer a request itself (`intercept`) or act after one was answered
 * (`after`, e.g. a concurrent writer changing a record between the read and the write).
 */
export function recordingFetch() {
  const sent: SentRequest[] = [];
  const state = {
    sent,
    inFlight: 0,
    maxInFlight: 0,
    intercept: undefined as ((request: SentRequest) => Response | undefined) | undefined,
    after: undefined as ((request: SentRequest, index: number) => Promise<void>) | undefined,
    fetch: async (url: string, init: RequestInit): Promise<Response> => {
      const headers = Object.fromEntries(Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
      const request = { method: init.method ?? 'GET', url: decodeURIComponent(url), headers, body: typeof init.body === 'string' ? init.body : undefined };
      const index = sent.push(request) - 1;
      const own = state.intercept?.(request);
      if (own) return own;
      state.inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      try {
        const response = await fetch(url, init);
        const text = await response.text();
        await state.after?.(request, index);
        return new Response(response.status === 204 ? null : text, { status: response.status, statusText: response.statusText, headers: response.headers });
      } finally {
        state.inFlight--;
      }
    },
  };
  return state;
}

/** An OData target on `serviceUrl` whose HTTP goes through `fetcher`. */
export function batchTarget(serviceUrl: string, fetcher: ReturnType<typeof recordingFetch>, options: Partial<OdataTargetOptions> = {}, maxConcurrency = 4): OdataTarget {
  const http = new OdataHttpClient({ serviceRoot: serviceUrl, label: 'odata connection "catalog"', fetch: fetcher.fetch, maxConcurrency });
  return new OdataTarget({ http, label: 'odata connection "catalog"', entityKeys: { Orders: ['ID'] }, ...options });
}

export const booksTarget: Mapping = {
  name: 'to-books',
  source: { entity: 'x', key: ['id'] },
  target: { entity: 'Books', key: ['ID'], versionField: 'modifiedAt' },
  fields: [{ target: 'ID', source: 'id' }, { target: 'title', source: 'title' }, { target: 'stock', source: 'stock' }],
};

/** Orders are found by their alternate key `number`; the service generates the UUID key `ID`. */
export const ordersTarget: Mapping = {
  name: 'to-orders',
  source: { entity: 'x', key: ['no'] },
  target: { entity: 'Orders', key: ['number'] },
  fields: [{ target: 'number', source: 'no' }, { target: 'quantity', source: 'qty' }],
};

const job: Job = {
  name: 'j', order: 1, schedule: '0 * * * * *', enabled: true, source: 's', target: 'catalog', mapping: 'to-books',
  priority: 'normal', watermark: { type: 'datetime', field: 'modifiedAt' }, filter: [], action: JobActionType.NewUpdate,
  skipOutdatedMessages: false, skipUnchanged: false, pageSize: 100, lookbackSeconds: 0,
};

export function msg(targetKey: Record<string, JsonValue>, fields: Record<string, JsonValue> = {}, changeTracker = '2026-01-01T00:00:00.000Z', action: JobAction = JobActionType.NewUpdate): QueueMessage {
  return createQueueMessage({ jobName: 'j', action, sourceKey: String(Object.values(targetKey)[0]), targetKey, changeTracker, fields: { ...targetKey, ...fields } });
}

export function group(mapping: Mapping, messages: QueueMessage[], extra: { action?: JobAction; versionCheck?: WatermarkType; responseMapping?: TargetBatch['responseMapping'] } = {}): TargetBatch {
  return {
    job,
    mapping,
    action: extra.action ?? JobActionType.NewUpdate,
    messages,
    responseMapping: extra.responseMapping,
    versionCheck: extra.versionCheck ? { type: extra.versionCheck } : undefined,
  };
}

/** The outcomes with errors shown by kind and HTTP status (what a test compares). */
export function shown(outcomes: ReadonlyArray<{ status: string; error?: unknown }>): unknown[] {
  return outcomes.map((o) => {
    if (o.status !== 'failed') return o;
    const error = o.error as { name?: string; details?: { status?: number } };
    return { status: 'failed', error: `${error.name} ${error.details?.status ?? ''}`.trim() };
  });
}
