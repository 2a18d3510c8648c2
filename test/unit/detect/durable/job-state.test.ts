import { applyJobStateOperation } from '../../../../src/detect/durable/job-state';

describe('JobState entity logic', () => {
  it('answers InProgress without changing the state', () => {
    expect(applyJobStateOperation(['a'], 'InProgress', 'a')).toEqual({ state: ['a'], result: true });
    expect(applyJobStateOperation(['a'], 'InProgress', 'b')).toEqual({ state: ['a'], result: false });
    expect(applyJobStateOperation(undefined, 'InProgress', 'a')).toEqual({ state: [], result: false });
  });

  it('adds once: a second Add reports false and keeps one entry', () => {
    const first = applyJobStateOperation([], 'Add', 'a');
    expect(first).toEqual({ state: ['a'], result: true });
    expect(applyJobStateOperation(first.state, 'Add', 'a')).toEqual({ state: ['a'], result: false });
  });

  it('removes and reports whether the job was there', () => {
    expect(applyJobStateOperation(['a', 'b'], 'Remove', 'a')).toEqual({ state: ['b'], result: true });
    expect(applyJobStateOperation(['b'], 'Remove', 'a')).toEqual({ state: ['b'], result: false });
  });

  it('does not modify the state it is given', () => {
    const state = ['a'];
    applyJobStateOperation(state, 'Add', 'b');
    applyJobStateOperation(state, 'Remove', 'a');
    expect(state).toEqual(['a']);
  });

  it('treats a stored state that is not a list of names as empty', () => {
    expect(applyJobStateOperation({ a: 1 } as unknown as string[], 'InProgress', 'a')).toEqual({ state: [], result: false });
    expect(applyJobStateOperation(['a', 7] as unknown as string[], 'Add', 'b')).toEqual({ state: ['a', 'b'], result: true });
  });

  it('rejects unknown operations and inputs that are not job names', () => {
    expect(() => applyJobStateOperation([], 'Reset', 'a')).toThrow('JobState: unknown operation "Reset" (expected InProgress, Add or Remove)');
    expect(() => applyJobStateOperation([], undefined, 'a')).toThrow('JobState: unknown operation null (expected InProgress, Add or Remove)');
    expect(() => applyJobStateOperation([], 'Add', '  ')).toThrow('JobState.Add input: expected a job name, got "  "');
    expect(() => applyJobStateOperation([], 'Remove', undefined)).toThrow('JobState.Remove input: expected a job name, got null');
  });
});
