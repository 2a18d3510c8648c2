import { type Job, JobActionType } from '../../../src/model/job';
import type { Mapping } from '../../../src/model/mapping';
import { deserializeQueueMessage, type QueueMessage, serializeQueueMessage } from '../../../src/model/queue-message';
import { WatermarkValue } from '../../../src/model/watermark-value';
import { BYTES_VALUE, DECIMAL_VALUE, exactJson, INSTANT_UTC, instantOf, INT64_VALUES, JSON_EXACT_TEXT, JSON_VALUE, type ValueKind } from '../value-matrix';
import type { ContractContext, PreparedValues } from './context';

/** Each kind of the matrix is read exactly and travels through the JSON body as the message contract says. */
export function valueCases(ctx: ContractContext): void {
  ctx.caseIt(['exactValues'])('reads 64-bit integers, exact decimals, bytes, instants with microseconds and JSON exactly, through the JSON body', async () => {
    const p = await ctx.prepareValues();
    try {
      const kinds = Object.keys(p.columns) as ValueKind[];
      const received = (await readAll(p)).map((m) => deserializeQueueMessage(Buffer.from(serializeQueueMessage(m), 'utf8')));
      expect(received.map((m) => m.sourceKey).sort()).toEqual(['1', '2', '3', '4']);
      const byKey = [...received].sort((a, b) => a.sourceKey.localeCompare(b.sourceKey));
      const shown = byKey.map((m) => Object.fromEntries(kinds.map((kind) => [kind, shownValue(kind, m.fields[kind], p)])));
      const expected = INT64_VALUES.map((int64, i) =>
        Object.fromEntries(kinds.map((kind) => [kind, kind === 'int64' ? int64 : i === 0 ? EXPECTED[kind] : null])),
      );
      expect(shown).toEqual(expected);
    } finally {
      await p.done();
    }
  });
}

const EXPECTED: Record<ValueKind, unknown> = {
  int64: undefined,
  decimal: DECIMAL_VALUE,
  bytes: { $binary: BYTES_VALUE.toString('base64') },
  instant: INSTANT_UTC,
  json: JSON_VALUE,
  jsonExact: exactJson(JSON_EXACT_TEXT),
};

/**
 * A message value as the case compares it: instants by the instant they denote, JSON text parsed
 * where the system keeps JSON as text, a document beyond a double by the exact values of its
 * `{"$jsonText"}` (anything else, a rounded JSON value above all, shows as not exact).
 */
function shownValue(kind: ValueKind, value: unknown, p: PreparedValues): unknown {
  if (value === null || value === undefined) return null;
  if (kind === 'instant') return instantOf(value);
  if (kind === 'jsonExact') {
    const tagged = value as { $jsonText?: unknown };
    if (typeof tagged === 'object' && typeof tagged.$jsonText === 'string' && Object.keys(tagged).length === 1) return exactJson(tagged.$jsonText);
    return p.jsonAsText && typeof value === 'string' ? exactJson(value) : { notExact: value };
  }
  if (kind === 'json' && p.jsonAsText && typeof value === 'string') return JSON.parse(value);
  return value;
}

/** The value matrix's mapping: the key as `ref`, each kind's column under the kind's name. */
export function valuesMapping(p: PreparedValues): Mapping {
  return {
    name: 'values',
    source: { entity: p.entity, key: [p.key] },
    target: { entity: 'values_target', key: ['ref'] },
    fields: [{ target: 'ref', source: p.key }, ...Object.entries(p.columns).map(([kind, source]) => ({ target: kind, source }))],
  };
}

export function valuesJob(p: PreparedValues): Job {
  return {
    name: 'values', order: 1, schedule: '0 * * * * *', enabled: true, source: 'src', target: 'tgt', mapping: 'values',
    priority: 'normal', watermark: { type: p.watermarkType, field: p.tracker }, action: JobActionType.NewUpdate, filter: [],
    skipOutdatedMessages: false, skipUnchanged: false, pageSize: 100, lookbackSeconds: 0,
  };
}

/** Every message of a first run over the value matrix. */
export async function readAll(p: PreparedValues): Promise<QueueMessage[]> {
  const messages: QueueMessage[] = [];
  for await (const page of p.source().retrieveChanges(valuesMapping(p), valuesJob(p), WatermarkValue.initialize(p.watermarkType, null))) messages.push(...page.messages);
  return messages;
}
