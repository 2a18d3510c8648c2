import { resolveGetChangesInput, type OrchestrationInputDependencies } from '../../../src/http/orchestration-input';
import type { Job } from '../../../src/model/job';

const job = (name: string) => ({ name }) as Job;
const NOW = new Date('2026-03-01T08:00:00Z');

function deps(overrides: Partial<OrchestrationInputDependencies> = {}) {
  const dueAt: Date[] = [];
  const d: OrchestrationInputDependencies = {
    config: { ensureInitialized: async () => undefined, getJob: (name) => (['a', 'b', 'off'].includes(name) ? job(name) : undefined) },
    dueJobs: async (now) => {
      dueAt.push(now);
      return [job('b'), job('a')];
    },
    now: () => NOW,
    ...overrides,
  };
  return { d, dueAt };
}

describe('GetChangesOrchestrator input from the starter request', () => {
  it('takes the jobs due now, in due order, for an empty body', async () => {
    const { d, dueAt } = deps();
    expect(await resolveGetChangesInput(d, '  ')).toEqual({ ok: true, input: { jobs: ['b', 'a'] } });
    expect(dueAt).toEqual([NOW]);
  });

  it('takes the named jobs in the given order, disabled ones too', async () => {
    const { d, dueAt } = deps();
    expect(await resolveGetChangesInput(d, '{"jobs":["off","a"]}')).toEqual({ ok: true, input: { jobs: ['off', 'a'] } });
    expect(await resolveGetChangesInput(d, '{}')).toEqual({ ok: true, input: { jobs: ['b', 'a'] } });
    expect(dueAt).toHaveLength(1);
  });

  it.each([
    ['{', /^body: not JSON \(/],
    ['[]', 'body: expected a JSON object'],
    ['{"job":["a"]}', 'body.job: unknown property (allowed: jobs)'],
    ['{"jobs":"a"}', 'body.jobs: expected an array of job names'],
    ['{"jobs":[]}', 'body.jobs: expected at least one job name'],
    ['{"jobs":["a",""]}', 'body.jobs[1]: expected a job name'],
    ['{"jobs":["a","a"]}', 'body.jobs[1]: "a" is listed twice'],
    ['{"jobs":["a","nope"]}', 'body.jobs[1]: unknown job "nope"'],
  ])('answers 400 for %s', async (body, message) => {
    const resolved = await resolveGetChangesInput(deps().d, body);
    expect(resolved).toMatchObject({ ok: false, output: { status: 400, body: { error: { code: 'BadRequest', message } } } });
  });

  it('answers 503 when the configuration cannot be loaded', async () => {
    const { d } = deps({ config: { ensureInitialized: () => Promise.reject(new Error('table jobs: unreachable')), getJob: () => undefined } });
    expect(await resolveGetChangesInput(d, '')).toEqual({
      ok: false,
      output: { status: 503, body: { error: { code: 'ConfigurationUnavailable', message: 'table jobs: unreachable' } } },
    });
  });
});
