import type { ApplicationProperties } from '../../../../src/bus/message-bus';
import { JobActionType, type Job } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import type { QueueMessage } from '../../../../src/model/queue-message';
import type { AppliedVersionRecorder } from '../../../../src/storage/applied-version-store';
import { comesBack, guardStale, recordApplied, watchSetAside } from '../../../../src/process/batch/stale-guard';
import type { Work } from '../../../../src/process/batch/triage';
import type { ProcessingDependencies } from '../../../../src/process/processing-dependencies';
import { TransientError } from '../../../../src/platform/errors';
import { silentLogger } from '../../../../src/telemetry/logger';

const job = { name: 'contacts', target: 'erp', watermark: { type: 'datetime', field: 'm' } } as unknown as Job;
const mapping = { name: 'm', target: { entity: 'contacts', key: ['id'] } } as unknown as Mapping;
let index = 0;
function work(id: string, changeTracker: string, properties: ApplicationProperties = {}, deliveryCount = 1, action = JobActionType.NewUpdate): Work {
  const message = { jobName: job.name, action, sourceKey: id, targetKey: { id }, changeTracker, fields: {} } as unknown as QueueMessage;
  return { index: index++, item: { message: { applicationProperties: properties, deliveryCount } as never, settler: {} as never }, message, job, mapping, attempt: 1 };
}

/** What the store holds: the newest applied tracker per id; `asked` counts reads. */
function store(applied: Record<string, string>, fail?: Error) {
  const s = {
    asked: [] as string[][],
    recorded: [] as string[],
    watched: [] as string[],
    watch: async (changes: ReadonlyArray<{ target: string; targetKey: Record<string, unknown> }>) => {
      if (fail) throw fail;
      s.watched.push(...changes.map((c) => `${c.target}:${String(c.targetKey.id)}`));
    },
    recordApplied: (change: { targetKey: Record<string, unknown>; changeTracker: string }) => void s.recorded.push(`${String(change.targetKey.id)}@${change.changeTracker}`),
    newerApplied: async (changes: ReadonlyArray<{ targetKey: Record<string, unknown>; changeTracker: string }>) => {
      s.asked.push(changes.map((c) => String(c.targetKey.id)));
      if (fail) throw fail;
      return changes.map((c) => {
        const t = applied[String(c.targetKey.id)];
        return t !== undefined && t > c.changeTracker ? { jobName: job.name, action: 'NewUpdate', changeTracker: t, type: 'datetime' as const } : undefined;
      });
    },
  };
  return s;
}
const deps = (s: ReturnType<typeof store>) => ({ appliedVersions: s as unknown as AppliedVersionRecorder, log: silentLogger }) as unknown as ProcessingDependencies;

describe('the stale guard', () => {
  it('checks only messages that come back: resubmitted, retry or deferred copies, redeliveries', () => {
    expect(comesBack(work('A', '1'))).toBe(false);
    expect(comesBack(work('A', '1', { ResubmittedFrom: 'sbqnormal/$deadletterqueue#4' }))).toBe(true);
    expect(comesBack(work('A', '1', { Attempt: 2 }))).toBe(true);
    expect(comesBack(work('A', '1', {}, 2))).toBe(true);
  });

  it('reads nothing for a batch of first deliveries (the hot path)', async () => {
    const s = store({ A: '2026-01-02' });
    const batch = [work('A', '2026-01-01'), work('B', '2026-01-01')];
    expect(await guardStale(batch, deps(s))).toEqual({ kept: batch, verdicts: [] });
    expect(s.asked).toEqual([]);
  });

  it('ignores a returning message older than the applied change, with the reason; keeps equal, newer and forced ones; one read', async () => {
    const s = store({ A: '2026-01-02', B: '2026-01-02', C: '2026-01-02', D: '2026-01-02' });
    const stale = work('A', '2026-01-01', { Attempt: 3 });
    const equal = work('B', '2026-01-02', { Attempt: 2 });
    const newer = work('C', '2026-01-03', { ResubmittedFrom: 'x#1' });
    const forced = work('D', '2026-01-01', { ResubmittedFrom: 'x#2', ForceApply: true });
    const fresh = work('A', '2026-01-01');
    const { kept, verdicts } = await guardStale([stale, equal, newer, forced, fresh], deps(s));
    expect(kept).toEqual([equal, newer, forced, fresh]);
    expect(verdicts).toEqual([{ kind: 'ignored', work: stale, reason: 'superseded: a newer change of this record (change tracker 2026-01-02, job "contacts") was applied since' }]);
    expect(s.asked).toEqual([['A', 'B', 'C']]);
  });

  it('never checks an InvokeAction message (calling an action is no state that a later one replaces)', async () => {
    const s = store({ A: '2026-01-02' });
    const invoke = work('A', '2026-01-01', { Attempt: 2 }, 1, JobActionType.InvokeAction);
    expect((await guardStale([invoke], deps(s))).kept).toEqual([invoke]);
    expect(s.asked).toEqual([]);
  });

  it('fails the returning messages (retried later) when the store cannot be read, rather than apply them blind', async () => {
    const s = store({}, new TransientError('table storage unavailable'));
    const back = work('A', '2026-01-01', { Attempt: 2 });
    const fresh = work('B', '2026-01-01');
    const { kept, verdicts } = await guardStale([back, fresh], deps(s));
    expect(kept).toEqual([fresh]);
    expect(verdicts).toEqual([expect.objectContaining({ kind: 'failed', work: back, group: true })]);
  });

  it('watches the records of messages set aside (failed, deferred, ignored), not applied or superseded ones', async () => {
    const s = store({});
    const applied = work('A', '1');
    const failedW = work('F', '1');
    await watchSetAside(
      [
        { kind: 'applied', work: applied },
        { kind: 'superseded', work: work('S', '1') },
        { kind: 'failed', index: failedW.index, item: failedW.item, error: new Error('x'), work: failedW },
        { kind: 'deferred', work: work('D', '1'), until: new Date(), connection: 'erp' },
        { kind: 'ignored', work: work('I', '1'), reason: 'r' },
        { kind: 'failed', index: 99, item: failedW.item, error: new Error('malformed') },
      ],
      deps(s),
    );
    expect(s.watched).toEqual(['erp\ncontacts:F', 'erp\ncontacts:D', 'erp\ncontacts:I']);
  });

  it('settles the batch all the same when the watch cannot be written', async () => {
    const s = store({}, new TransientError('table storage unavailable'));
    const w = work('F', '1');
    await expect(watchSetAside([{ kind: 'failed', index: w.index, item: w.item, error: new Error('x'), work: w }], deps(s))).resolves.toBeUndefined();
  });

  it('records applied upserts and deletes, not ignored ones', () => {
    const s = store({});
    const a = work('A', '2026-01-01');
    const d = work('D', '2026-01-01', {}, 1, JobActionType.Delete);
    recordApplied([{ kind: 'applied', work: a }, { kind: 'applied', work: d }, { kind: 'ignored', work: work('X', '1'), reason: 'r' }], deps(s));
    expect(s.recorded).toEqual(['A@2026-01-01', 'D@2026-01-01']);
  });
});
