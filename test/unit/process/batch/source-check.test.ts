import type { ApplicationProperties } from '../../../../src/bus/message-bus';
import type { SourceConnector } from '../../../../connectors/base/source-connector';
import { JobActionType, type Job } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import type { QueueMessage } from '../../../../src/model/queue-message';
import { checkAtSource, redelivered, supersededAtSource, supersededByRecord } from '../../../../src/process/batch/source-check';
import type { Work } from '../../../../src/process/batch/triage';
import type { ProcessingDependencies } from '../../../../src/process/processing-dependencies';
import { TransientError } from '../../../../src/platform/errors';

const job = { name: 'contacts', source: 'crm', target: 'erp', watermark: { type: 'number', field: 'ver' } } as unknown as Job;
const other = { ...job, name: 'accounts', source: 'crm2' } as Job;
const mapping = { name: 'm', source: { entity: 'contacts', key: ['id'] }, target: { entity: 'contacts', key: ['id'] } } as unknown as Mapping;
let index = 0;
function work(id: string, changeTracker: string, deliveryCount = 2, options: { action?: JobActionType; properties?: ApplicationProperties; of?: Job } = {}): Work {
  const message = { jobName: (options.of ?? job).name, action: options.action ?? JobActionType.NewUpdate, sourceKey: id, targetKey: { id }, changeTracker, fields: {} } as unknown as QueueMessage;
  return { index: index++, item: { message: { applicationProperties: options.properties ?? {}, deliveryCount } as never, settler: {} as never }, message, job: options.of ?? job, mapping, attempt: 1 };
}

/** A source whose records hold these trackers; `asked` lists each read (connection: keys). */
function sources(records: Record<string, string | null>, options: { fail?: Error; lacksRead?: boolean } = {}) {
  const asked: string[] = [];
  const warnings: string[] = [];
  const source = (connection: string): SourceConnector => ({
    retrieveChanges: () => { throw new Error('not used'); },
    close: async () => undefined,
    ...(options.lacksRead ? {} : {
      currentTrackers: async (_m: Mapping, _j: Job, keys: readonly string[]) => {
        asked.push(`${connection}: ${keys.join(',')}`);
        if (options.fail) throw options.fail;
        return new Map(keys.filter((k) => k in records).map((k) => [k, records[k]]));
      },
    }),
  });
  const deps = {
    sources: { source: async (name: string) => source(name) },
    log: { info: () => undefined, warn: (m: string) => warnings.push(m), error: () => undefined, debug: () => undefined },
  } as unknown as ProcessingDependencies;
  return { deps, asked, warnings };
}

describe('the source check of redeliveries', () => {
  it('checks only redeliveries (delivery 2 and later), not first deliveries nor our own copies', () => {
    expect(redelivered(work('A', '1', 1))).toBe(false);
    expect(redelivered(work('A', '1', 1, { properties: { Attempt: 3 } }))).toBe(false);
    expect(redelivered(work('A', '1', 2))).toBe(true);
  });

  it('decides by the job watermark type: newer at the source supersedes; equal, older, unknown and out-of-scope do not', () => {
    const current = new Map<string, string | null>([['A', '10'], ['B', '9'], ['C', '8'], ['D', null], ['E', 'x']]);
    const decide = (key: string, action: QueueMessage['action'] = JobActionType.NewUpdate) => supersededAtSource({ action, sourceKey: key, changeTracker: '9' }, 'number', current, 'contacts');
    // 10 > 9 numerically although "10" < "9" as text.
    expect(decide('A')).toBe("superseded at the source: the record's change tracker in contacts is now 10, newer than this change's 9");
    expect(decide('B')).toBeUndefined();
    expect(decide('C')).toBeUndefined();
    expect(decide('D')).toBeUndefined();
    expect(decide('E')).toBeUndefined();
    expect(decide('gone')).toBe('superseded at the source: the record is no longer in contacts (its delete follows or was applied)');
    // A delete of a record that is gone is what the source says: applied.
    expect(decide('gone', JobActionType.Delete)).toBeUndefined();
    expect(decide('A', JobActionType.Delete)).toContain('superseded at the source');
  });

  it('reads nothing for a batch without redeliveries (the hot path)', async () => {
    const s = sources({ A: '5' });
    const batch = [work('A', '1', 1), work('B', '1', 1, { properties: { Attempt: 2 } })];
    expect(await checkAtSource(batch, s.deps)).toEqual({ kept: batch, verdicts: [] });
    expect(s.asked).toEqual([]);
  });

  it('ignores superseded redeliveries with their reason; one read per job; skips InvokeAction and forced messages', async () => {
    const s = sources({ A: '5', B: '2', X: '9' });
    const stale = work('A', '2');
    const same = work('B', '2');
    const fresh = work('A', '1', 1);
    const invoke = work('A', '1', 2, { action: JobActionType.InvokeAction });
    const forced = work('A', '1', 2, { properties: { ForceApply: true } });
    const otherJob = work('X', '3', 2, { of: other });
    const { kept, verdicts } = await checkAtSource([stale, same, fresh, invoke, forced, otherJob], s.deps);
    expect(kept).toEqual([same, fresh, invoke, forced]);
    expect(verdicts).toEqual([
      { kind: 'ignored', work: stale, reason: "superseded at the source: the record's change tracker in contacts is now 5, newer than this change's 2" },
      { kind: 'ignored', work: otherJob, reason: "superseded at the source: the record's change tracker in contacts is now 9, newer than this change's 3" },
    ]);
    expect(s.asked.sort()).toEqual(['crm2: X', 'crm: A,B']);
  });

  it('applies as delivered, with a warning naming job and source, when the source cannot be read', async () => {
    const s = sources({}, { fail: new TransientError('connect ECONNREFUSED 127.0.0.1:5432') });
    const back = work('A', '1');
    expect(await checkAtSource([back], s.deps)).toEqual({ kept: [back], verdicts: [] });
    expect(s.warnings).toEqual(['job "contacts": 1 redelivered message(s) not checked against source "crm" (applied as delivered): connect ECONNREFUSED 127.0.0.1:5432']);
  });

  it('leaves redeliveries unchecked for a source without the read, or without sources at all', async () => {
    const back = work('A', '1');
    const s = sources({}, { lacksRead: true });
    expect(await checkAtSource([back], s.deps)).toEqual({ kept: [back], verdicts: [] });
    expect(s.warnings).toEqual([]);
    expect(await checkAtSource([back], { ...s.deps, sources: undefined })).toEqual({ kept: [back], verdicts: [] });
  });

  it('compares the records of a source whose trackers cannot be ordered (change tracking by delta links)', async () => {
    const now = (id: string, fields: Record<string, unknown>, action = JobActionType.NewUpdate) => [id, { sourceKey: id, action, fields } as unknown as QueueMessage] as const;
    const records = new Map([now('A', { name: 'Acme', n: 1 }), now('B', { n: 2, name: 'Beta' }), now('D', {}, JobActionType.Delete)]);
    const change = (id: string, fields: Record<string, unknown>, action = JobActionType.NewUpdate) => ({ sourceKey: id, action, fields }) as unknown as QueueMessage;
    expect(supersededByRecord(change('A', { name: 'Acme (old)', n: 1 }), records, 'accounts')).toBe('superseded at the source: the record in accounts has changed since (its newer change follows)');
    expect(supersededByRecord(change('B', { name: 'Beta', n: 2 }), records, 'accounts')).toBeUndefined();
    expect(supersededByRecord(change('C', { name: 'Gone' }), records, 'accounts')).toBe('superseded at the source: the record is no longer in accounts (its delete follows or was applied)');
    expect(supersededByRecord(change('D', { name: 'Gone' }), records, 'accounts')).toBe('superseded at the source: the record is no longer in accounts (its delete follows or was applied)');
    expect(supersededByRecord(change('C', {}, JobActionType.Delete), records, 'accounts')).toBeUndefined();
    expect(supersededByRecord(change('A', {}, JobActionType.Delete), records, 'accounts')).toBeUndefined();

    const asked: string[] = [];
    const delta: SourceConnector = {
      retrieveChanges: () => { throw new Error('not used'); },
      close: async () => undefined,
      currentTrackers: async () => undefined,
      readByKeys: async (_m: Mapping, _j: Job, keys: readonly string[]) => {
        asked.push(keys.join(','));
        return new Map([...records].filter(([k]) => keys.includes(k)));
      },
    };
    const deps = { sources: { source: async () => delta }, log: { info: () => undefined, warn: () => undefined } } as unknown as ProcessingDependencies;
    const old = { ...work('A', '2026-12-06T10:00:00Z'), message: { ...work('A', '1').message, fields: { name: 'Acme (old)', n: 1 } } } as Work;
    const same = { ...work('B', '2026-12-06T10:00:00Z'), message: { ...work('B', '1').message, fields: { name: 'Beta', n: 2 } } } as Work;
    const { kept, verdicts } = await checkAtSource([old, same], deps);
    expect(kept).toEqual([same]);
    expect(verdicts).toEqual([{ kind: 'ignored', work: old, reason: 'superseded at the source: the record in contacts has changed since (its newer change follows)' }]);
    expect(asked).toEqual(['A,B']);
  });
});
