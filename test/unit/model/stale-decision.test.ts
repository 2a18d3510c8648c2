import { newestRecorded, staleReason, type RecordedChange } from '../../../src/model/stale-decision';

const row = (changeTracker: string, over: Partial<RecordedChange> = {}): RecordedChange => ({ jobName: 'j', action: 'NewUpdate', changeTracker, type: 'datetime', ...over });

describe('newestRecorded (when a message that comes back is stale)', () => {
  it('is stale when a newer change was applied, and names the newest of them', () => {
    const found = newestRecorded({ changeTracker: '2026-01-01T00:00:01Z' }, 'datetime', [row('2026-01-01T00:00:03Z'), row('2026-01-01T00:00:05Z', { jobName: 'd', action: 'Delete' })]);
    expect(found).toEqual(row('2026-01-01T00:00:05Z', { jobName: 'd', action: 'Delete' }));
  });

  it('is not stale on an equal tracker: the same change again, or another change in the same second', () => {
    expect(newestRecorded({ changeTracker: '2026-01-01T00:00:01.000+00:00' }, 'datetime', [row('2026-01-01T00:00:01Z')])).toBeUndefined();
  });

  it('is not stale when what was applied is older, or nothing was', () => {
    expect(newestRecorded({ changeTracker: '2026-01-01T00:00:02Z' }, 'datetime', [row('2026-01-01T00:00:01Z')])).toBeUndefined();
    expect(newestRecorded({ changeTracker: '2026-01-01T00:00:02Z' }, 'datetime', [])).toBeUndefined();
  });

  it('compares numbers as numbers (10 is newer than 9), 64-bit exact', () => {
    expect(newestRecorded({ changeTracker: '9' }, 'number', [row('10', { type: 'number' })])).toBeDefined();
    expect(newestRecorded({ changeTracker: '9007199254740993' }, 'number', [row('9007199254740992', { type: 'number' })])).toBeUndefined();
    expect(newestRecorded({ changeTracker: '9007199254740992' }, 'number', [row('9007199254740993', { type: 'number' })])).toBeDefined();
  });

  it('ignores rows of another watermark type than the job’s (the job changed type)', () => {
    expect(newestRecorded({ changeTracker: '5' }, 'number', [row('2026-01-01T00:00:01Z')])).toBeUndefined();
  });

  it('without the job’s type, orders by the type each row was recorded with', () => {
    expect(newestRecorded({ changeTracker: '2026-01-01T00:00:00Z' }, undefined, [row('2026-01-01T00:00:01Z')])).toBeDefined();
  });

  it('never makes a message stale whose tracker is no value of the type', () => {
    expect(newestRecorded({ changeTracker: 'not a date' }, 'datetime', [row('2026-01-01T00:00:01Z')])).toBeUndefined();
  });
});

describe('staleReason', () => {
  it('names the newer change, its job and whether it was a delete', () => {
    expect(staleReason(row('2026-01-01T00:00:03.0000000Z'))).toBe('superseded: a newer change of this record (change tracker 2026-01-01T00:00:03.0000000Z, job "j") was applied since');
    expect(staleReason(row('7', { type: 'number', action: 'Delete', jobName: 'del' }))).toBe('superseded: a newer delete of this record (change tracker 7, job "del") was applied since');
  });
});
