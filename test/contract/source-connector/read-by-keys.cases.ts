import type { SourceConnector } from '../../../connectors/base/source-connector';
import { type Job, JobActionType } from '../../../src/model/job';
import type { Mapping } from '../../../src/model/mapping';
import type { QueueMessage } from '../../../src/model/queue-message';
import { joinSourceKey } from '../../../src/model/source-key';
import type { WatermarkValue } from '../../../src/model/watermark-value';
import { type CaseId, type ContractContext, contractJob, contractMapping, type PreparedSource, readRun, records, type SourceRecord } from './context';
import { readAll, valuesJob, valuesMapping } from './values.cases';

/** Records the many-keys case holds; it asks for them among {@link MANY_KEYS} keys. */
const MANY_SEED: readonly number[] = [1, 2, 3, 4, 5, 6, 7, 8, 9];
/** Keys asked for in one call by the many-keys case: more than one statement or request holds. */
const MANY_KEYS = 1200;
/** Key texts that are no value of an integer or GUID key: not in the source, not an error. */
const FOREIGN_KEYS: readonly string[] = ['x', '1.5', '-'];
/** Contract keys standing for records that are not there (the many-keys case asks from the first on). */
const ABSENT_FROM = 100;

/**
 * The keys the many-keys case asks for, in order: the seed's spread over the whole list (so the
 * records found fall in different statements / requests), foreign texts, absent records.
 */
function manyKeys(keyValue: (key: number) => unknown): string[] {
  const absent = Array.from({ length: MANY_KEYS - MANY_SEED.length - FOREIGN_KEYS.length }, (_, i) => String(keyValue(ABSENT_FROM + i)));
  const keys = [...FOREIGN_KEYS, ...absent];
  const step = Math.floor(keys.length / MANY_SEED.length);
  MANY_SEED.forEach((key, i) => keys.splice(i * (step + 1) + step, 0, String(keyValue(key))));
  return keys;
}

/** Labels the composite-key case keys records by, with the separator and the escape inside. */
const COMPOSITE_LABELS: Readonly<Record<number, string>> = { 1: 'a|b', 2: 'c\\d', 3: 'e\\|f\\', 4: 'plain' };

/** The contract mapping keyed by the key and the label (the composite-key case). */
function compositeMapping(p: PreparedSource): Mapping {
  const base = contractMapping(p);
  return { ...base, source: { ...base.source, key: [p.fields.key, p.fields.label] } };
}

/** The keys of the value matrix's records, asked for by the value case. */
export const VALUE_KEYS: readonly string[] = ['1', '2', '3', '4'];

/**
 * The keys each case asks `readByKeys` for, in order: recorded harnesses script the reads from it.
 * @param seed the case's records; `keyValue` the harness's (see `PreparedSource.keyValue`).
 */
export function askedKeys(id: CaseId, seed: readonly SourceRecord[], keyValue: (key: number) => unknown): string[] {
  const key = (n: number) => String(keyValue(n));
  switch (id) {
    case 'read-by-keys':
      return [key(ABSENT_FROM), ...seed.map((r) => key(r.key)), ...FOREIGN_KEYS];
    case 'read-by-keys-composite':
      // The key's parts must all match: the label of another record, or the label unescaped, find nothing.
      return [...seed.map((r) => joinSourceKey([keyValue(r.key), r.label])), joinSourceKey([keyValue(1), COMPOSITE_LABELS[2]]), `${key(1)}|a|b`, key(4)];
    case 'read-by-keys-many':
      return manyKeys(keyValue);
    default:
      return seed.map((r) => key(r.key));
  }
}

/**
 * `readByKeys` (two-way sync reads the current record on both sides): per key found, exactly the
 * message detection builds for the record now (but its `correlationId` and `detectedAt`): same
 * source and target key, fields, action (`Delete` for a soft-deleted record) and change tracker.
 * A record that is not there, or outside the job filter, is absent; so is a key that is no value
 * of the key's type. Composite keys with `|` and `\` inside, the value matrix, and more keys than
 * one read holds.
 */
export function readByKeysCases(ctx: ContractContext): void {
  ctx.caseIt(['readByKeys'])('reads each record as detection sends it; a record not there is absent', async () => {
    const seed = records([1, 2, 3, 4, 5]);
    const p = await ctx.prepare({ id: 'read-by-keys', seed, uses: ['readByKeys'] });
    try {
      const job = { ...contractJob(p), lookbackSeconds: 3600 };
      const detected = (await readRun(p.source(), p, job, p.watermark(null))).messages;
      expect(detected).toHaveLength(5);
      const read = await readByKeys(p.source(), contractMapping(p), job, askedKeys('read-by-keys', seed, p.keyValue));
      expect(shown(read)).toEqual(shown(byKey(detected)));
    } finally {
      await p.done();
    }
  });

  ctx.caseIt(['readByKeys', 'filter'])('leaves out a record outside the job filter', async () => {
    const seed = records([1, 2, 3, 4]).map((r): SourceRecord => (r.key % 2 === 0 ? { ...r, group: 'drop' } : r));
    const p = await ctx.prepare({ id: 'read-by-keys-filter', seed, uses: ['readByKeys', 'filter'] });
    try {
      const job = contractJob(p, { filter: true });
      const detected = (await readRun(p.source(), p, job, p.watermark(null))).messages;
      expect(detected.map((m) => m.sourceKey).sort()).toEqual([1, 3].map((k) => String(p.keyValue(k))).sort());
      const read = await readByKeys(p.source(), contractMapping(p), job, askedKeys('read-by-keys-filter', seed, p.keyValue));
      expect(shown(read)).toEqual(shown(byKey(detected)));
    } finally {
      await p.done();
    }
  });

  ctx.caseIt(['readByKeys', 'deletes'])('reads a soft-deleted record as the Delete detection sends; a removed record is absent', async () => {
    const seed = records([1, 2, 3]).map((r) => (r.key === 2 ? { ...r, deleted: true } : r));
    const p = await ctx.prepare({ id: 'read-by-keys-deletes', seed, uses: ['readByKeys', 'deletes'] });
    try {
      const job = contractJob(p, { softDelete: true });
      const detected = (await readRun(p.source(), p, job, p.watermark(0))).messages;
      expect(detected.filter((m) => m.action === JobActionType.Delete).map((m) => m.sourceKey)).toEqual([String(p.keyValue(2))]);
      const read = await readByKeys(p.source(), contractMapping(p), job, askedKeys('read-by-keys-deletes', seed, p.keyValue));
      // Soft-deleted: the record is there, flagged. Removed (change tracking): it is not there.
      const expected = p.softDelete ? detected : detected.filter((m) => m.action !== JobActionType.Delete);
      expect(shown(read)).toEqual(shown(byKey(expected)));
    } finally {
      await p.done();
    }
  });

  ctx.caseIt(['readByKeys'])('reads records by a composite key whose text holds the separator and the escape', async () => {
    const seed = records([1, 2, 3, 4]).map((r) => ({ ...r, label: COMPOSITE_LABELS[r.key] }));
    const p = await ctx.prepare({ id: 'read-by-keys-composite', seed, uses: ['readByKeys'] });
    try {
      const mapping = compositeMapping(p);
      const job = contractJob(p);
      const detected = await allMessages(p.source(), mapping, job, p.watermark(null));
      expect(detected.map((m) => m.sourceKey).sort()).toEqual(seed.map((r) => joinSourceKey([p.keyValue(r.key), r.label])).sort());
      const read = await readByKeys(p.source(), mapping, job, askedKeys('read-by-keys-composite', seed, p.keyValue));
      expect(shown(read)).toEqual(shown(byKey(detected)));
    } finally {
      await p.done();
    }
  });

  ctx.caseIt(['readByKeys'])(`reads ${MANY_KEYS} keys in one call`, async () => {
    const seed = records(MANY_SEED);
    const p = await ctx.prepare({ id: 'read-by-keys-many', seed, uses: ['readByKeys'] });
    try {
      const job = contractJob(p);
      const detected = (await readRun(p.source(), p, job, p.watermark(null))).messages;
      const keys = askedKeys('read-by-keys-many', seed, p.keyValue);
      expect(keys).toHaveLength(MANY_KEYS);
      const read = await readByKeys(p.source(), contractMapping(p), job, keys);
      expect(shown(read)).toEqual(shown(byKey(detected)));
    } finally {
      await p.done();
    }
  });

  ctx.caseIt(['readByKeys', 'exactValues'])('reads the value matrix by key exactly as detection sends it', async () => {
    const p = await ctx.prepareValues('read-by-keys-values');
    try {
      const detected = await readAll(p);
      const read = await readByKeys(p.source(), valuesMapping(p), valuesJob(p), VALUE_KEYS);
      expect(shown(read)).toEqual(shown(byKey(detected)));
    } finally {
      await p.done();
    }
  });
}

async function readByKeys(source: SourceConnector, mapping: Mapping, job: Job, keys: readonly string[]): Promise<Map<string, QueueMessage>> {
  if (!source.readByKeys) throw new Error('the source has no readByKeys: implement it, or declare readByKeys unsupported with the reason');
  return source.readByKeys(mapping, job, keys);
}

async function allMessages(source: SourceConnector, mapping: Mapping, job: Job, watermark: WatermarkValue): Promise<QueueMessage[]> {
  const messages: QueueMessage[] = [];
  for await (const page of source.retrieveChanges(mapping, job, watermark)) messages.push(...page.messages);
  return messages;
}

function byKey(messages: readonly QueueMessage[]): Map<string, QueueMessage> {
  return new Map(messages.map((m) => [m.sourceKey, m]));
}

/** A read as compared: sorted by key, each message without what differs per read (`correlationId`, `detectedAt`). */
function shown(read: ReadonlyMap<string, QueueMessage>): Array<[string, Omit<QueueMessage, 'correlationId' | 'detectedAt'>]> {
  return [...read.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, { correlationId: _id, detectedAt: _at, ...message }]) => [key, message]);
}
