import { applyJobStateOperation, JOB_LEASE_MS, type JobLease } from '../../../../src/detect/durable/job-state';

const T0 = Date.parse('2026-03-01T08:00:00Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const request = (job: string, owner: string, ms = 0) => ({ job, owner, at: at(ms) });
const lease = (job: string, owner: string, ms = 0): JobLease => ({ job, owner, renewedAt: at(ms) });

describe('JobState entity logic', () => {
  it('answers InProgress without changing the state', () => {
    const state = [lease('a', 'i1')];
    expect(applyJobStateOperation(state, 'InProgress', request('a', 'i2', 1000))).toEqual({ state, result: true });
    expect(applyJobStateOperation(state, 'InProgress', request('b', 'i2', 1000))).toEqual({ state, result: false });
    expect(applyJobStateOperation(undefined, 'InProgress', request('a', 'i2'))).toEqual({ state: [], result: false });
  });

  it('adds once: a second Add while the lease is live reports false and keeps the first owner', () => {
    const first = applyJobStateOperation([], 'Add', request('a', 'i1'));
    expect(first).toEqual({ state: [lease('a', 'i1')], result: true });
    expect(applyJobStateOperation(first.state, 'Add', request('a', 'i2', JOB_LEASE_MS - 1))).toEqual({ state: [lease('a', 'i1')], result: false });
  });

  it('lets another orchestration take over a lease not renewed for JOB_LEASE_MS (a terminated run)', () => {
    const state = [lease('a', 'terminated'), lease('b', 'i1')];
    expect(applyJobStateOperation(state, 'InProgress', request('a', 'i2', JOB_LEASE_MS))).toEqual({ state, result: false });
    expect(applyJobStateOperation(state, 'Add', request('a', 'i2', JOB_LEASE_MS))).toEqual({
      state: [lease('b', 'i1'), lease('a', 'i2', JOB_LEASE_MS)],
      result: true,
    });
  });

  it('renews only for its owner: a run whose lease was taken over learns it from Renew', () => {
    const state = [lease('a', 'i1')];
    expect(applyJobStateOperation(state, 'Renew', request('a', 'i1', 900_000))).toEqual({ state: [lease('a', 'i1', 900_000)], result: true });
    expect(applyJobStateOperation(state, 'Renew', request('a', 'i2', 900_000))).toEqual({ state, result: false });
    expect(applyJobStateOperation(state, 'Renew', request('b', 'i1', 900_000))).toEqual({ state, result: false });
  });

  it('removes only the owner’s lease, and reports whether it released one', () => {
    const state = [lease('a', 'i2'), lease('b', 'i1')];
    expect(applyJobStateOperation(state, 'Remove', { job: 'a', owner: 'i2' })).toEqual({ state: [lease('b', 'i1')], result: true });
    // The stale run finishing after its successor took the job over leaves the successor's lease alone.
    expect(applyJobStateOperation(state, 'Remove', { job: 'a', owner: 'i1' })).toEqual({ state, result: false });
    expect(applyJobStateOperation(state, 'Remove', { job: 'c', owner: 'i1' })).toEqual({ state, result: false });
  });

  it('accepts a job name alone, as orchestrations before the lease sent it: held without expiry', () => {
    const added = applyJobStateOperation([], 'Add', 'a');
    expect(added).toEqual({ state: [{ job: 'a', owner: '', renewedAt: '' }], result: true });
    expect(applyJobStateOperation(added.state, 'InProgress', 'a').result).toBe(true);
    expect(applyJobStateOperation(added.state, 'Remove', 'a')).toEqual({ state: [], result: true });
  });

  it('reads a stored list of names (the state before leases) as expired leases, so stuck jobs run again', () => {
    const stored = ['a', 7, { job: 'b' }, lease('c', 'i1')] as unknown[];
    expect(applyJobStateOperation(stored, 'InProgress', request('a', 'i2'))).toMatchObject({ result: false });
    expect(applyJobStateOperation(stored, 'Add', request('a', 'i2'))).toEqual({
      state: [lease('c', 'i1'), lease('a', 'i2')],
      result: true,
    });
    expect(applyJobStateOperation({ a: 1 } as unknown as unknown[], 'InProgress', request('a', 'i2'))).toEqual({ state: [], result: false });
  });

  it('does not modify the state it is given', () => {
    const state = [lease('a', 'i1')];
    applyJobStateOperation(state, 'Add', request('b', 'i1'));
    applyJobStateOperation(state, 'Renew', request('a', 'i1', 5));
    applyJobStateOperation(state, 'Remove', { job: 'a', owner: 'i1' });
    expect(state).toEqual([lease('a', 'i1')]);
  });

  it('rejects unknown operations and inputs that are not a job name or a request', () => {
    expect(() => applyJobStateOperation([], 'Reset', 'a')).toThrow('JobState: unknown operation "Reset" (expected InProgress, Add, Renew, Remove)');
    expect(() => applyJobStateOperation([], undefined, 'a')).toThrow('JobState: unknown operation null (expected InProgress, Add, Renew, Remove)');
    expect(() => applyJobStateOperation([], 'Add', '  ')).toThrow('JobState.Add input: expected a job name, got "  "');
    expect(() => applyJobStateOperation([], 'Remove', undefined)).toThrow('JobState.Remove input: expected a job name or { job, owner, at }, got null');
    expect(() => applyJobStateOperation([], 'Renew', { owner: 'i1' })).toThrow('JobState.Renew input.job: expected a job name, got null');
    expect(() => applyJobStateOperation([], 'Add', { job: 'a', owner: 7 })).toThrow('JobState.Add input.owner: expected an instance id, got 7');
    expect(() => applyJobStateOperation([], 'InProgress', { job: 'a', at: 'yesterday' })).toThrow(
      'JobState.InProgress input.at: expected an ISO 8601 time, got "yesterday"',
    );
  });
});
