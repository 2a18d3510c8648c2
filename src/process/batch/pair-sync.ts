import { JobActionType } from '../../model/job';
import type { Mapping } from '../../model/mapping';
import { otherSide, type PairSide, type PairSideName } from '../../model/pair';
import { softDeleteWrite } from '../../twoway/soft-delete-writes';
import { createQueueMessage, type JsonValue, type QueueMessage } from '../../model/queue-message';
import { joinSourceKey, splitSourceKey } from '../../model/source-key';
import { errorMessage } from '../../platform/errors';
import type { ProcessingDependencies } from '../processing-dependencies';
import type { Work } from './triage';
import { failed, type Verdict } from './verdict';
import type { Coupling, CouplingStore, PairConflict } from '../../twoway/coupling-store';
import { lastChangedByUs, readMappingWithEditor } from '../../twoway/modified-by';
import { mergeRecord, type MergeResult, type RecordView, type SideWrite } from '../../twoway/merge-record';
import { pairContext, type PairContext } from './pair-context';

/**
 * The two-way stage of processing: a pair job's message is a notice that its record changed.
 * Both sides are read as they are now (one `readByKeys` per side and job), merged field by field
 * against the coupling (`merge-record.ts`), and whatever either side lacks is written to it —
 * so a stale, duplicated or resubmitted message finds the record in sync and writes nothing.
 * Messages of other jobs pass through untouched.
 */
export async function syncPairs(work: readonly Work[], deps: ProcessingDependencies): Promise<{ kept: Work[]; verdicts: Verdict[] }> {
  const paired = work.filter((w) => w.job.pair !== undefined);
  if (paired.length === 0) return { kept: [...work], verdicts: [] };
  const byPair = new Map<string, Map<string, Work[]>>();
  for (const w of paired) {
    const jobs = byPair.get(w.job.pair!.name) ?? new Map<string, Work[]>();
    jobs.set(w.job.name, [...(jobs.get(w.job.name) ?? []), w]);
    byPair.set(w.job.pair!.name, jobs);
  }
  // Pairs in parallel; the two directions of one pair one after the other, so that the second
  // reads what the first wrote instead of racing it for the same couplings.
  const perPair = await Promise.all(
    [...byPair.values()].map(async (jobs) => {
      const out: Verdict[] = [];
      for (const group of jobs.values()) out.push(...(await syncGroup(group, deps)));
      return out;
    }),
  );
  return { kept: work.filter((w) => w.job.pair === undefined), verdicts: perPair.flat() };
}

async function syncGroup(group: readonly Work[], deps: ProcessingDependencies): Promise<Verdict[]> {
  const { job, mapping } = group[0];
  const store = deps.couplings;
  let ctx: PairContext;
  let sRead: Map<string, QueueMessage>;
  let tRead: Map<string, QueueMessage>;
  let couplings: Map<string, Coupling>;
  let tKeys: Map<Work, string | undefined>;
  try {
    if (!store) throw new Error(`job "${job.name}" is part of a pair, but this host has no coupling store`);
    ctx = await pairContext(job, mapping, deps.config, deps.sources);
    const side = ctx.job.pair!.side;
    const keys = [...new Set(group.map((w) => w.message.sourceKey))];
    // The coupling first, then the sides: a base read after a side could already hold a concurrent
    // sync's write that the side read predates, and the stale side value would look like an edit
    // (and be written back over the newer one). Read in this order, a side is never older than
    // its base; a sync that wrote meanwhile makes this one's coupling write fail, and it retries.
    couplings = await store.getMany(ctx.pair.name, side, keys);
    sRead = await ctx.source.readByKeys(readMappingWithEditor(mapping, ctx.pair[side]), job, keys);
    tKeys = new Map(group.map((w) => [w, otherKey(ctx, w, couplings.get(w.message.sourceKey), sRead.get(w.message.sourceKey))]));
    const wanted = [...new Set([...tKeys.values()].filter((k): k is string => k !== undefined))];
    tRead = wanted.length > 0 ? await ctx.partnerSource.readByKeys(readMappingWithEditor(ctx.partnerMapping, ctx.pair[otherSide(side)]), ctx.partner, wanted) : new Map();
  } catch (err) {
    return group.map((w) => failed(w, err, true));
  }
  // One record at a time within the group: two messages of one record never race here.
  const verdicts: Verdict[] = [];
  for (const w of group) {
    try {
      verdicts.push(await syncOne(ctx, w, store, deps, couplings.get(w.message.sourceKey), sRead.get(w.message.sourceKey), tKeys.get(w), tRead));
    } catch (err) {
      verdicts.push(failed(w, err));
    }
  }
  return verdicts;
}

async function syncOne(
  ctx: PairContext,
  w: Work,
  store: CouplingStore,
  deps: ProcessingDependencies,
  coupling: Coupling | undefined,
  sMessage: QueueMessage | undefined,
  tKey: string | undefined,
  tRead: Map<string, QueueMessage>,
): Promise<Verdict> {
  const side = ctx.job.pair!.side;
  const sKey = w.message.sourceKey;
  const tMessage = tKey === undefined ? undefined : tRead.get(tKey);
  const keyA = side === 'a' ? sKey : tKey;
  const conflict = keyA === undefined ? undefined : await store.getConflict(ctx.pair.name, keyA);
  const result = mergeRecord({
    pair: ctx.pair,
    side,
    fields: ctx.fields,
    s: viewOf(sMessage),
    t: viewOf(tMessage),
    base: coupling ? { s: side === 'a' ? coupling.hashA : coupling.hashB, t: side === 'a' ? coupling.hashB : coupling.hashA } : undefined,
    resolution: conflict?.resolution,
    newer: ctx.newer,
  });
  if (result.writeT?.kind === 'upsert' && !result.writeT.create && lastChangedByUs(ctx.pair[side], sMessage) === true) {
    // Both signals disagree: the record's last editor is Highwater, yet its values differ from
    // what Highwater wrote. The hashes decide (it is synced as an edit); the operator learns that
    // this side stores these fields differently from how they were written — a bounce to check.
    deps.log.warn(
      `pair "${ctx.pair.name}", record ${side} ${sKey}: last changed by Highwater's own user (${ctx.pair[side].modifiedBy!.field}), yet field(s) ${Object.keys(result.writeT.fields).join(', ')} differ from what it wrote: synced as an edit; check how side ${side} stores these fields`,
    );
  }
  for (const line of result.decisions) deps.log.info(`pair "${ctx.pair.name}", record ${side} ${sKey}: ${line}`);
  const wrote = await write(ctx, result, sKey, tKey, sMessage, tMessage, deps);
  if (tKey !== undefined && keyA !== undefined) {
    await recordCoupling(ctx, store, result, coupling, sKey, tKey, sMessage, tMessage, deps);
    await recordConflict(ctx, store, result, conflict, keyA, sKey, tKey, sMessage, tMessage, deps);
  }
  if (wrote || result.parked.length === 0) return { kind: 'applied', work: w };
  return { kind: 'ignored', work: w, reason: `conflict parked for an operator (pair "${ctx.pair.name}", fields ${result.parked.join(', ')}): see highwater conflicts list` };
}

/** The record's key on the other side: the coupled one, else the key its fields map to. */
function otherKey(ctx: PairContext, w: Work, coupling: Coupling | undefined, current: QueueMessage | undefined): string | undefined {
  if (coupling) return ctx.job.pair!.side === 'a' ? coupling.keyB : coupling.keyA;
  const targetKey = current?.targetKey ?? w.message.targetKey;
  const values = ctx.partnerMapping.source.key.map((k) => targetKey[k]);
  return values.some((v) => v === undefined || v === null || v === '') ? undefined : joinSourceKey(values);
}

function viewOf(message: QueueMessage | undefined): RecordView | undefined {
  if (!message || message.action === JobActionType.Delete) return undefined;
  return { fields: message.fields, tracker: message.changeTracker };
}

async function write(ctx: PairContext, result: MergeResult, sKey: string, tKey: string | undefined, sMessage: QueueMessage | undefined, tMessage: QueueMessage | undefined, deps: ProcessingDependencies): Promise<boolean> {
  let wrote = false;
  if (result.writeT && tKey !== undefined) {
    const targetKey = result.writeT.kind === 'upsert' && result.writeT.create && sMessage ? sMessage.targetKey : keyObject(ctx.mapping, tKey);
    await applyWrite(deps, ctx.job.name, ctx.job.target, ctx.mapping, withSoftDelete(result.writeT, ctx.pair[otherSide(ctx.job.pair!.side)], deps), sKey, targetKey, sMessage?.changeTracker ?? '');
    wrote = true;
  }
  if (result.writeS) {
    const targetKey = result.writeS.kind === 'upsert' && result.writeS.create && tMessage ? tMessage.targetKey : keyObject(ctx.partnerMapping, sKey);
    await applyWrite(deps, ctx.partner.name, ctx.partner.target, ctx.partnerMapping, withSoftDelete(result.writeS, ctx.pair[ctx.job.pair!.side], deps), tKey ?? '', targetKey, tMessage?.changeTracker ?? '');
    wrote = true;
  }
  return wrote;
}

/** A key's values by the target key fields of `mapping` (the key fields of the side it writes). */
function keyObject(mapping: Mapping, key: string): Record<string, JsonValue> {
  const values = splitSourceKey(key);
  return Object.fromEntries(mapping.target.key.map((field, i) => [field, values[i] ?? null]));
}

/** A side with a soft-delete flag: a delete sets it, a create (a restore or a new record) clears it (see `soft-delete-writes.ts`). */
function withSoftDelete(change: SideWrite, side: PairSide, deps: ProcessingDependencies): SideWrite {
  if (change.kind === 'delete') {
    const flag = softDeleteWrite(side.softDelete, 'delete', deps.clock.now());
    return flag ? { kind: 'upsert', fields: flag, create: false } : change;
  }
  if (!change.create) return change;
  const cleared = softDeleteWrite(side.softDelete, 'restore', deps.clock.now());
  return cleared ? { ...change, fields: { ...change.fields, ...cleared } } : change;
}

async function applyWrite(deps: ProcessingDependencies, jobName: string, connection: string, mapping: Mapping, change: SideWrite, sourceKey: string, targetKey: Record<string, JsonValue>, tracker: string): Promise<void> {
  const target = await deps.targets.target(connection);
  const action = change.kind === 'delete' ? JobActionType.Delete : JobActionType.NewUpdate;
  const message = createQueueMessage({ jobName, action, sourceKey, targetKey, changeTracker: tracker, fields: change.kind === 'upsert' ? change.fields : {} });
  if (change.kind === 'delete') await target.delete(message, mapping);
  else await target.upsert(message, mapping);
}

async function recordCoupling(ctx: PairContext, store: CouplingStore, result: MergeResult, coupling: Coupling | undefined, sKey: string, tKey: string, sMessage: QueueMessage | undefined, tMessage: QueueMessage | undefined, deps: ProcessingDependencies): Promise<void> {
  const side = ctx.job.pair!.side;
  const keyA = side === 'a' ? sKey : tKey;
  if (result.hashes === 'remove') {
    if (coupling) await store.remove(ctx.pair.name, keyA);
    return;
  }
  if (!result.hashes) return;
  const trackers: Record<PairSideName, string | null> = { a: null, b: null };
  trackers[side] = sMessage?.changeTracker ?? null;
  trackers[otherSide(side)] = tMessage?.changeTracker ?? null;
  await store.put({
    pair: ctx.pair.name,
    keyA,
    keyB: side === 'a' ? tKey : sKey,
    hashA: side === 'a' ? result.hashes.s : result.hashes.t,
    hashB: side === 'a' ? result.hashes.t : result.hashes.s,
    trackerA: trackers.a,
    trackerB: trackers.b,
    syncedAt: deps.clock.now().toISOString(),
    ...(coupling?.version !== undefined ? { version: coupling.version } : {}),
  });
}

async function recordConflict(ctx: PairContext, store: CouplingStore, result: MergeResult, existing: PairConflict | undefined, keyA: string, sKey: string, tKey: string, sMessage: QueueMessage | undefined, tMessage: QueueMessage | undefined, deps: ProcessingDependencies): Promise<void> {
  if (result.parked.length === 0) {
    if (existing) await store.removeConflict(ctx.pair.name, keyA);
    return;
  }
  // Read again right before writing: an operator may have resolved it while this sync ran (its
  // notice is on the way). Parking it anew would drop the resolution, and the notice would find
  // the conflict unresolved.
  const current = await store.getConflict(ctx.pair.name, keyA);
  if (current?.resolution !== undefined) return;
  const side = ctx.job.pair!.side;
  const version = (m: QueueMessage | undefined) => ({ values: m && m.action !== JobActionType.Delete ? m.fields : {}, tracker: m?.changeTracker ?? null, ...(!m || m.action === JobActionType.Delete ? { deleted: true } : {}) });
  const s = version(sMessage);
  const t = version(tMessage);
  const conflict: PairConflict = {
    pair: ctx.pair.name,
    keyA,
    keyB: side === 'a' ? tKey : sKey,
    fields: result.parked,
    a: side === 'a' ? s : t,
    b: side === 'a' ? t : s,
    detectedAt: current?.detectedAt ?? existing?.detectedAt ?? deps.clock.now().toISOString(),
  };
  try {
    await store.putConflict(conflict);
  } catch (err) {
    throw new Error(`pair "${ctx.pair.name}": the conflict of record ${keyA} could not be parked: ${errorMessage(err)}`);
  }
}
