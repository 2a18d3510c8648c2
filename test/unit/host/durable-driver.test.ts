import type { JobActivityParam, JobActivityResult } from '../../../src/detect/durable/durable-contract';
import { DurableDriver } from '../../../src/host/durable-driver';

function result(param: JobActivityParam, pages: number): JobActivityResult {
  const more = param.pageNumber < pages - 1;
  return { jobName: param.jobName, page: param.pageNumber, cursor: `c${param.pageNumber}`, startWatermark: null, watermark: `w${param.pageNumber}`, hasMoreRecord: more, detected: 3, sent: 3 };
}

/** An activity whose calls wait until the test releases them. */
function gatedActivity(pages: number) {
  const calls: JobActivityParam[] = [];
  const waiting: Array<() => void> = [];
  const activity = async (input: unknown) => {
    const param = input as JobActivityParam;
    calls.push(param);
    await new Promise<void>((resolve) => waiting.push(resolve));
    return result(param, pages);
  };
  /** Lets pending work run, then tells how many calls are waiting. */
  const settled = async () => {
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    return waiting.length;
  };
  const releaseAll = async () => {
    while ((await settled()) > 0) waiting.splice(0).forEach((release) => release());
  };
  return { calls, activity, settled, releaseAll };
}

let ids = 0;
const newInstanceId = () => `i${++ids}`;
const clock = { now: () => new Date('2026-03-01T08:00:00Z') };

describe('DurableDriver (local stand-in for the Durable Task engine)', () => {
  it('answers Pending at once, then runs the orchestration to Completed with its output', async () => {
    const driver = new DurableDriver({ activity: async (input) => result(input as JobActivityParam, 2), clock, newInstanceId });
    const id = driver.start({ jobs: ['crm-accounts'] });
    expect(driver.status(id)).toMatchObject({ instanceId: id, name: 'GetChangesOrchestrator', runtimeStatus: 'Pending', output: null, input: { jobs: ['crm-accounts'] } });
    const final = await driver.waitForCompletion(id);
    expect(final).toMatchObject({ runtimeStatus: 'Completed', customStatus: null, createdTime: '2026-03-01T08:00:00.000Z' });
    expect(final.output).toEqual({
      startedAt: '2026-03-01T08:00:00.000Z',
      endedAt: '2026-03-01T08:00:00.000Z',
      jobs: [{ jobName: 'crm-accounts', outcome: 'Succeeded', pages: 2, detected: 6, sent: 6, watermark: 'w1' }],
    });
    expect(driver.jobsInProgress()).toEqual([]);
  });

  it('continues as new like the engine: the next generation runs with the hand-over, the job stays held between them', async () => {
    const calls: JobActivityParam[] = [];
    let heldAtHandOver: string[] | undefined;
    const driver: DurableDriver = new DurableDriver({
      activity: async (input) => {
        const param = input as JobActivityParam;
        calls.push(param);
        if (param.pageNumber === 100) heldAtHandOver = driver.jobsInProgress();
        return result(param, 120);
      },
      clock,
      newInstanceId,
    });
    const id = driver.start({ jobs: ['crm-accounts'] });
    const final = await driver.waitForCompletion(id);
    expect(final.runtimeStatus).toBe('Completed');
    expect(calls.map((c) => c.pageNumber)).toEqual(Array.from({ length: 120 }, (_, page) => page));
    expect(calls[100]).toMatchObject({ cursor: 'c99', watermark: 'w99' });
    expect(heldAtHandOver).toEqual(['crm-accounts']);
    expect(final.input).toMatchObject({ jobs: ['crm-accounts'], resume: { done: [], next: { pageNumber: 100 } } });
    expect(final.output?.jobs).toEqual([{ jobName: 'crm-accounts', outcome: 'Succeeded', pages: 120, detected: 360, sent: 360, watermark: 'w119' }]);
    expect(driver.jobsInProgress()).toEqual([]);
  });

  it('keeps JobState in memory: a second instance skips the job the first is running', async () => {
    const gate = gatedActivity(1);
    const driver = new DurableDriver({ activity: gate.activity, clock, newInstanceId });
    const first = driver.start({ jobs: ['crm-accounts'] });
    expect(await gate.settled()).toBe(1);
    expect(driver.status(first)).toMatchObject({ runtimeStatus: 'Running', customStatus: { jobName: 'crm-accounts', page: 0 } });
    expect(driver.jobsInProgress()).toEqual(['crm-accounts']);

    const second = driver.start({ jobs: ['crm-accounts', 'crm-contacts'] });
    expect(await gate.settled()).toBe(2);
    await gate.releaseAll();
    expect((await driver.waitForCompletion(second)).output?.jobs.map((j) => [j.jobName, j.outcome])).toEqual([
      ['crm-accounts', 'Skipped'],
      ['crm-contacts', 'Succeeded'],
    ]);
    expect((await driver.waitForCompletion(first)).output?.jobs.map((j) => j.outcome)).toEqual(['Succeeded']);
    expect(gate.calls.map((c) => c.jobName)).toEqual(['crm-accounts', 'crm-contacts']);
    expect(driver.jobsInProgress()).toEqual([]);
  });

  it('removes a job from JobState when its activity fails, and records the error', async () => {
    const driver = new DurableDriver({ activity: () => Promise.reject(new Error('source "crm" unreachable')), clock, newInstanceId });
    const final = await driver.waitForCompletion(driver.start({ jobs: ['crm-accounts'] }));
    expect(final.runtimeStatus).toBe('Completed');
    expect(final.output?.jobs).toEqual([{ jobName: 'crm-accounts', outcome: 'Failed', pages: 0, detected: 0, sent: 0, watermark: null, error: 'source "crm" unreachable' }]);
    expect(driver.jobsInProgress()).toEqual([]);
  });

  it('marks the instance Failed when the orchestration itself throws', async () => {
    const driver = new DurableDriver({ activity: async () => undefined as unknown as JobActivityResult, clock, newInstanceId });
    const final = await driver.waitForCompletion(driver.start({ jobs: 'crm-accounts' } as unknown as { jobs: string[] }));
    expect(final).toMatchObject({ runtimeStatus: 'Failed', error: 'GetChangesOrchestrator input.jobs: expected an array of job names', output: null });
  });

  it('hands the activity JSON copies, as the engine would', async () => {
    const seen: unknown[] = [];
    const driver = new DurableDriver({
      activity: async (input) => {
        seen.push(input);
        return { ...result(input as JobActivityParam, 1), extra: undefined, at: new Date('2026-01-01T00:00:00Z') } as unknown as JobActivityResult;
      },
      clock,
      newInstanceId,
    });
    const final = await driver.waitForCompletion(driver.start({ jobs: ['a'] }));
    expect(seen).toEqual([{ jobName: 'a', pageNumber: 0 }]);
    expect(final.output?.jobs[0]).toMatchObject({ outcome: 'Succeeded', watermark: 'w0' });
  });

  it('refuses a duplicate instance id and new starts after close, forgets the oldest finished instances', async () => {
    const driver = new DurableDriver({ activity: async (input) => result(input as JobActivityParam, 1), clock, keepFinished: 1 });
    const a = driver.start({ jobs: [] }, 'a');
    expect(() => driver.start({ jobs: [] }, 'a')).toThrow('instance "a" already exists');
    await driver.waitForCompletion(a);
    const b = driver.start({ jobs: [] }, 'b');
    await driver.waitForCompletion(b);
    driver.start({ jobs: [] }, 'c');
    expect(driver.status('a')).toBeUndefined();
    expect(driver.status('b')?.runtimeStatus).toBe('Completed');
    await driver.close();
    expect(driver.status('c')?.runtimeStatus).toBe('Completed');
    expect(() => driver.start({ jobs: [] })).toThrow('the durable driver is closed');
  });
});
