import { getChangesOrchestrator } from '../../../../functions/GetChangesOrchestrator';
import { jobState } from '../../../../functions/JobState';
import type { GetChangesOutput, JobActivityParam, JobActivityResult } from '../../../../src/detect/durable/durable-contract';
import { runOrchestration, type ReplayBackend } from './support/durable-replay';

// Registration happens on import; a virtual host module keeps @azure/functions out of test mode.
jest.mock('@azure/functions-core', () => ({ setProgrammingModel() {}, registerFunction: () => ({ dispose() {} }), registerHook: () => ({ dispose() {} }), log() {} }), {
  virtual: true,
});

const JOB_STATE_ID = '@jobstate@jobs';

/** A fake GetChangesActivity: `pages[job]` pages per job, 3 records each but the last. */
function pagedActivity(pages: Record<string, number>, failAt?: { job: string; page: number }) {
  const seen: JobActivityParam[] = [];
  const activity = (input: unknown): JobActivityResult => {
    const param = input as JobActivityParam;
    seen.push(param);
    if (failAt && failAt.job === param.jobName && failAt.page === param.pageNumber) throw new Error(`source "${param.jobName}" unreachable`);
    const last = pages[param.jobName] - 1;
    const sent = param.pageNumber === last ? 1 : 3;
    return {
      jobName: param.jobName,
      page: param.pageNumber,
      cursor: `${param.jobName}:${param.pageNumber}`,
      startWatermark: '2026-01-01T00:00:00.0000000Z',
      watermark: `2026-02-0${param.pageNumber + 1}T00:00:00.0000000Z`,
      hasMoreRecord: param.pageNumber < last,
      detected: sent,
      sent,
    };
  };
  return { seen, activity };
}

/** An entity call as `Operation(job)`; the input crosses the engine as the request object. */
function entityCall(call: { operation?: string; input?: unknown }): string {
  const input = typeof call.input === 'string' ? (JSON.parse(call.input) as unknown) : call.input;
  const request = input as { job?: string; owner?: string };
  return `${call.operation}(${request.job}${request.owner === 'instance-1' ? '' : ` by ${request.owner}`})`;
}

function backend(activity: (input: unknown) => unknown, state?: unknown[]): ReplayBackend {
  const entityStates = new Map<string, string>();
  if (state) entityStates.set(JOB_STATE_ID, JSON.stringify(state));
  return { activities: { GetChangesActivity: activity }, entities: { JobState: jobState }, entityStates };
}

describe('GetChangesOrchestrator on the durable replay engine', () => {
  it('pages a job until HasMoreRecord is false, carrying the cursor, then removes it from JobState', async () => {
    const { seen, activity } = pagedActivity({ 'crm-accounts': 3 });
    const b = backend(activity);
    const run = await runOrchestration(getChangesOrchestrator, { jobs: ['crm-accounts'] }, b);

    expect(run.status).toBe('Completed');
    expect(seen).toEqual([
      { jobName: 'crm-accounts', pageNumber: 0 },
      { jobName: 'crm-accounts', pageNumber: 1, cursor: 'crm-accounts:0', startWatermark: '2026-01-01T00:00:00.0000000Z', watermark: '2026-02-01T00:00:00.0000000Z' },
      { jobName: 'crm-accounts', pageNumber: 2, cursor: 'crm-accounts:1', startWatermark: '2026-01-01T00:00:00.0000000Z', watermark: '2026-02-02T00:00:00.0000000Z' },
    ]);
    expect(run.calls.filter((c) => c.kind === 'entity').map(entityCall)).toEqual([
      'InProgress(crm-accounts)',
      'Add(crm-accounts)',
      'Remove(crm-accounts)',
    ]);
    expect(run.output).toEqual({
      startedAt: '2026-03-01T08:00:00.000Z',
      endedAt: '2026-03-01T08:00:06.000Z',
      jobs: [{ jobName: 'crm-accounts', outcome: 'Succeeded', pages: 3, detected: 7, sent: 7, watermark: '2026-02-03T00:00:00.0000000Z' }],
    } satisfies GetChangesOutput);
    expect(JSON.parse(b.entityStates.get(JOB_STATE_ID) ?? 'null')).toEqual([]);
    // One episode per awaited task, each replaying the history so far: 3 entity calls + 3 pages.
    expect(run.episodes).toBe(7);
  });

  it('skips a job that JobState holds as in progress and still runs the others', async () => {
    const { seen, activity } = pagedActivity({ 'crm-accounts': 1, 'crm-contacts': 1 });
    const held = { job: 'crm-accounts', owner: 'other-instance', renewedAt: '2026-03-01T07:59:00.000Z' };
    const b = backend(activity, [held]);
    const run = await runOrchestration(getChangesOrchestrator, { jobs: ['crm-accounts', 'crm-contacts'] }, b);

    expect(seen.map((p) => p.jobName)).toEqual(['crm-contacts']);
    expect(run.calls.filter((c) => c.kind === 'entity').map(entityCall)).toEqual([
      'InProgress(crm-accounts)',
      'InProgress(crm-contacts)',
      'Add(crm-contacts)',
      'Remove(crm-contacts)',
    ]);
    expect((run.output as GetChangesOutput).jobs.map((j) => [j.jobName, j.outcome, j.pages])).toEqual([
      ['crm-accounts', 'Skipped', 0],
      ['crm-contacts', 'Succeeded', 1],
    ]);
    // The other orchestration's entry is left alone.
    expect(JSON.parse(b.entityStates.get(JOB_STATE_ID) ?? 'null')).toEqual([held]);
  });

  it('removes a job whose page fails, records why, and goes on with the next job', async () => {
    const { seen, activity } = pagedActivity({ 'crm-accounts': 3, 'crm-contacts': 1 }, { job: 'crm-accounts', page: 1 });
    const b = backend(activity);
    const run = await runOrchestration(getChangesOrchestrator, { jobs: ['crm-accounts', 'crm-contacts'] }, b);

    expect(run.status).toBe('Completed');
    expect(seen.map((p) => `${p.jobName}#${p.pageNumber}`)).toEqual(['crm-accounts#0', 'crm-accounts#1', 'crm-contacts#0']);
    const [accounts, contacts] = (run.output as GetChangesOutput).jobs;
    expect(accounts).toMatchObject({ jobName: 'crm-accounts', outcome: 'Failed', pages: 1, sent: 3 });
    expect(accounts.error).toContain('source "crm-accounts" unreachable');
    expect(contacts).toMatchObject({ outcome: 'Succeeded', pages: 1 });
    expect(run.calls.filter((c) => c.kind === 'entity' && c.operation === 'Remove').map(entityCall)).toEqual(['Remove(crm-accounts)', 'Remove(crm-contacts)']);
    expect(JSON.parse(b.entityStates.get(JOB_STATE_ID) ?? 'null')).toEqual([]);
  });

  it('takes over a job whose lease a terminated orchestration left, once it is an hour old', async () => {
    const { seen, activity } = pagedActivity({ 'crm-accounts': 1 });
    // Terminated at 06:59: it never reached its Remove. The entry before leases (a name alone) counts as expired too.
    const b = backend(activity, [{ job: 'crm-accounts', owner: 'terminated-instance', renewedAt: '2026-03-01T06:59:59.000Z' }, 'crm-contacts']);
    const run = await runOrchestration(getChangesOrchestrator, { jobs: ['crm-accounts', 'crm-contacts'] }, b);

    expect(seen.map((p) => p.jobName)).toEqual(['crm-accounts', 'crm-contacts']);
    expect((run.output as GetChangesOutput).jobs.map((j) => j.outcome)).toEqual(['Succeeded', 'Succeeded']);
    expect(JSON.parse(b.entityStates.get(JOB_STATE_ID) ?? 'null')).toEqual([]);
  });

  it('continues as new every 100 pages, keeping the job held and every result, so no history grows with the job', async () => {
    const { seen, activity } = pagedActivity({ 'crm-accounts': 250, 'crm-contacts': 2 }, { job: 'crm-contacts', page: 1 });
    const b = backend(activity);
    const run = await runOrchestration(getChangesOrchestrator, { jobs: ['crm-accounts', 'crm-contacts'] }, b);

    expect(run).toMatchObject({ status: 'Completed', generations: 3 });
    expect(seen.map((p) => `${p.jobName}#${p.pageNumber}`)).toEqual([
      ...Array.from({ length: 250 }, (_, page) => `crm-accounts#${page}`),
      'crm-contacts#0',
      'crm-contacts#1',
    ]);
    // The page after a generation's last one carries its cursor and watermarks across the hand-over.
    expect(seen[100]).toEqual({
      jobName: 'crm-accounts',
      pageNumber: 100,
      cursor: 'crm-accounts:99',
      startWatermark: '2026-01-01T00:00:00.0000000Z',
      watermark: `2026-02-0${99 + 1}T00:00:00.0000000Z`,
    });
    // Held once across all three generations, released once.
    expect(run.calls.filter((c) => c.kind === 'entity').map(entityCall)).toEqual([
      'InProgress(crm-accounts)',
      'Add(crm-accounts)',
      'Remove(crm-accounts)',
      'InProgress(crm-contacts)',
      'Add(crm-contacts)',
      'Remove(crm-contacts)',
    ]);
    const output = run.output as GetChangesOutput;
    expect(output.startedAt).toBe('2026-03-01T08:00:00.000Z');
    expect(output.jobs).toEqual([
      { jobName: 'crm-accounts', outcome: 'Succeeded', pages: 250, detected: 249 * 3 + 1, sent: 249 * 3 + 1, watermark: '2026-02-0250T00:00:00.0000000Z' },
      expect.objectContaining({ jobName: 'crm-contacts', outcome: 'Failed', pages: 1, error: expect.stringContaining('source "crm-contacts" unreachable') }),
    ]);
    expect(JSON.parse(b.entityStates.get(JOB_STATE_ID) ?? 'null')).toEqual([]);
    // A generation's history holds its ~100 pages (a few events each), not the job's 250.
    expect(run.longestHistory).toBeLessThan(2 * 250);
  });

  it('refuses a hand-over that does not match its jobs, naming the property', async () => {
    const resume = { startedAt: '2026-03-01T08:00:00.000Z', done: [], current: { jobName: 'other' }, next: { jobName: 'other', pageNumber: 3 }, renewedAt: 0 };
    const run = await runOrchestration(getChangesOrchestrator, { jobs: ['crm-accounts'], resume }, backend(() => undefined));
    expect(run.status).toBe('Failed');
    expect(run.error).toBe('GetChangesOrchestrator input.resume.current: expected the result so far of job "crm-accounts"');
    expect(run.calls).toEqual([]);
  });

  it('fails without touching JobState when the input names no jobs', async () => {
    const { seen, activity } = pagedActivity({});
    const run = await runOrchestration(getChangesOrchestrator, { jobs: 'crm-accounts' }, backend(activity));
    expect(run.status).toBe('Failed');
    expect(run.error).toBe('GetChangesOrchestrator input.jobs: expected an array of job names');
    expect(run.calls).toEqual([]);
    expect(seen).toEqual([]);
  });

  it('completes at once with no jobs', async () => {
    const run = await runOrchestration(getChangesOrchestrator, { jobs: [] }, backend(() => undefined));
    expect(run).toMatchObject({ status: 'Completed', episodes: 1, calls: [] });
    expect((run.output as GetChangesOutput).jobs).toEqual([]);
  });
});
