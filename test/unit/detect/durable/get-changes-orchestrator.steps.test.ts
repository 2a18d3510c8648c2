import { DummyOrchestrationContext, EntityId, type DurableOrchestrationContext, type Task } from 'durable-functions';
import { getChangesOrchestrator } from '../../../../functions/GetChangesOrchestrator';
import type { GetChangesOutput, JobActivityResult } from '../../../../src/detect/durable/durable-contract';

jest.mock('@azure/functions-core', () => ({ setProgrammingModel() {}, registerFunction: () => ({ dispose() {} }), registerHook: () => ({ dispose() {} }), log() {} }), {
  virtual: true,
});

/** What the stub `context.df` hands out instead of real tasks: the call, for the test to inspect. */
type StubTask = { call: 'entity'; entity: string; operation: string; input: unknown } | { call: 'activity'; name: string; input: unknown };

/** `DummyOrchestrationContext` with a stub `df` (the SDK leaves it undefined): the test is the engine. */
function steppedOrchestrator(input: unknown) {
  const statuses: unknown[] = [];
  const df = {
    currentUtcDateTime: new Date('2026-03-01T08:00:00Z'),
    instanceId: 'inst1',
    getInput: () => input,
    callEntity: (entity: EntityId, operation: string, operationInput: unknown) => {
      expect(entity).toBeInstanceOf(EntityId);
      return { call: 'entity', entity: entity.toString(), operation, input: operationInput } satisfies StubTask;
    },
    callActivity: (name: string, activityInput: unknown) => ({ call: 'activity', name, input: activityInput }) satisfies StubTask,
    setCustomStatus: (status: unknown) => statuses.push(status),
  };
  const context = new DummyOrchestrationContext('GetChangesOrchestrator');
  context.df = df as unknown as DurableOrchestrationContext;
  const generator = getChangesOrchestrator(context);
  const asStub = (task: Task | GetChangesOutput) => task as unknown as StubTask;
  return { generator, statuses, df, asStub };
}

const lease = (job: string, at = '2026-03-01T08:00:00.000Z') => ({ job, owner: 'inst1', at });

function page(jobName: string, pageNumber: number, hasMoreRecord: boolean): JobActivityResult {
  return { jobName, page: pageNumber, cursor: `c${pageNumber}`, startWatermark: null, watermark: `w${pageNumber}`, hasMoreRecord, detected: 3, sent: 3 };
}

describe('GetChangesOrchestrator stepped by hand', () => {
  it('asks JobState first, then pages, then removes, reporting the page as custom status', () => {
    const { generator, statuses, df, asStub } = steppedOrchestrator({ jobs: ['crm-accounts'] });
    expect(asStub(generator.next().value)).toEqual({ call: 'entity', entity: '@jobstate@jobs', operation: 'InProgress', input: lease('crm-accounts') });
    expect(asStub(generator.next(false).value)).toEqual({ call: 'entity', entity: '@jobstate@jobs', operation: 'Add', input: lease('crm-accounts') });
    expect(asStub(generator.next(true).value)).toEqual({ call: 'activity', name: 'GetChangesActivity', input: { jobName: 'crm-accounts', pageNumber: 0 } });
    expect(statuses).toEqual([{ jobName: 'crm-accounts', page: 0 }]);
    expect(asStub(generator.next(page('crm-accounts', 0, true)).value)).toMatchObject({ call: 'activity', input: { pageNumber: 1, cursor: 'c0', watermark: 'w0' } });
    expect(asStub(generator.next(page('crm-accounts', 1, false)).value)).toEqual({ call: 'entity', entity: '@jobstate@jobs', operation: 'Remove', input: { job: 'crm-accounts', owner: 'inst1' } });
    df.currentUtcDateTime = new Date('2026-03-01T08:00:09Z');
    const done = generator.next(true);
    expect(done.done).toBe(true);
    expect(done.value).toEqual({
      startedAt: '2026-03-01T08:00:00.000Z',
      endedAt: '2026-03-01T08:00:09.000Z',
      jobs: [{ jobName: 'crm-accounts', outcome: 'Succeeded', pages: 2, detected: 6, sent: 6, watermark: 'w1' }],
    });
    expect(statuses.at(-1)).toBeNull();
  });

  it('skips without Remove when JobState reports the job in progress', () => {
    const { generator, asStub } = steppedOrchestrator({ jobs: ['crm-accounts', 'crm-contacts'] });
    generator.next();
    expect(asStub(generator.next(true).value)).toEqual({ call: 'entity', entity: '@jobstate@jobs', operation: 'InProgress', input: lease('crm-contacts') });
  });

  it('skips without Remove when Add loses the race to another orchestration', () => {
    const { generator, asStub } = steppedOrchestrator({ jobs: ['crm-accounts'] });
    generator.next();
    expect(asStub(generator.next(false).value)).toMatchObject({ operation: 'Add' });
    const done = generator.next(false);
    expect(done.done).toBe(true);
    expect((done.value as GetChangesOutput).jobs).toEqual([{ jobName: 'crm-accounts', outcome: 'Skipped', pages: 0, detected: 0, sent: 0, watermark: null }]);
  });

  it('removes the job when the activity throws into the generator', () => {
    const { generator, asStub } = steppedOrchestrator({ jobs: ['crm-accounts'] });
    generator.next();
    generator.next(false);
    generator.next(true);
    expect(asStub(generator.throw(new Error('Activity function GetChangesActivity failed: timeout')).value)).toMatchObject({ operation: 'Remove', input: { job: 'crm-accounts', owner: 'inst1' } });
    const done = generator.next(true);
    expect((done.value as GetChangesOutput).jobs[0]).toMatchObject({ outcome: 'Failed', error: 'Activity function GetChangesActivity failed: timeout', pages: 0 });
  });

  it('treats a page that claims more records without a cursor as a failed job', () => {
    const { generator, asStub } = steppedOrchestrator({ jobs: ['crm-accounts'] });
    generator.next();
    generator.next(false);
    generator.next(true);
    const broken = { ...page('crm-accounts', 0, true), cursor: null };
    expect(asStub(generator.next(broken).value)).toMatchObject({ operation: 'Remove' });
    expect((generator.next(true).value as GetChangesOutput).jobs[0]).toMatchObject({ outcome: 'Failed', error: 'page 0 has more records but no cursor' });
  });

  it('renews its lease between pages once a quarter of JOB_LEASE_MS has passed', () => {
    const { generator, df, asStub } = steppedOrchestrator({ jobs: ['crm-accounts'] });
    generator.next();
    generator.next(false);
    generator.next(true);
    df.currentUtcDateTime = new Date('2026-03-01T08:14:59Z');
    expect(asStub(generator.next(page('crm-accounts', 0, true)).value)).toMatchObject({ call: 'activity', input: { pageNumber: 1 } });
    df.currentUtcDateTime = new Date('2026-03-01T08:15:00Z');
    expect(asStub(generator.next(page('crm-accounts', 1, true)).value)).toEqual({
      call: 'entity',
      entity: '@jobstate@jobs',
      operation: 'Renew',
      input: lease('crm-accounts', '2026-03-01T08:15:00.000Z'),
    });
    expect(asStub(generator.next(true).value)).toMatchObject({ call: 'activity', input: { pageNumber: 2 } });
    df.currentUtcDateTime = new Date('2026-03-01T08:29:59Z');
    expect(asStub(generator.next(page('crm-accounts', 2, true)).value)).toMatchObject({ call: 'activity', input: { pageNumber: 3 } });
  });

  it('stops the job (Failed) when Renew reports that another run took the lease over', () => {
    const { generator, df, asStub } = steppedOrchestrator({ jobs: ['crm-accounts', 'crm-contacts'] });
    generator.next();
    generator.next(false);
    generator.next(true);
    df.currentUtcDateTime = new Date('2026-03-01T09:30:00Z');
    expect(asStub(generator.next(page('crm-accounts', 0, true)).value)).toMatchObject({ operation: 'Renew' });
    expect(asStub(generator.next(false).value)).toEqual({
      call: 'entity',
      entity: '@jobstate@jobs',
      operation: 'Remove',
      input: { job: 'crm-accounts', owner: 'inst1' },
    });
    expect(asStub(generator.next(false).value)).toMatchObject({ operation: 'InProgress', input: { job: 'crm-contacts' } });
    const done = generator.next(true);
    expect(done.done).toBe(true);
    expect((done.value as GetChangesOutput).jobs[0]).toMatchObject({
      outcome: 'Failed',
      pages: 1,
      error: 'job "crm-accounts": its JobState lease expired and another run took the job over; this run stops',
    });
  });
});
