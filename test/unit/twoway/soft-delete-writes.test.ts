import { softDeleteWrite } from '../../../src/twoway/soft-delete-writes';

const now = new Date('2026-12-06T12:00:00.000Z');

describe('softDeleteWrite', () => {
  it.each([
    [{ field: 'deleted', op: 'eq' as const, value: 1 }, { deleted: 1 }, { deleted: 0 }],
    [{ field: 'deleted', op: 'eq' as const, value: true }, { deleted: true }, { deleted: false }],
    [{ field: 'deleted', op: 'eq' as const, value: '1' }, { deleted: '1' }, { deleted: '0' }],
    [{ field: 'state', op: 'eq' as const, value: 'gone' }, { state: 'gone' }, { state: null }],
    [{ field: 'deleted_at', op: 'isNotNull' as const }, { deleted_at: '2026-12-06T12:00:00.000Z' }, { deleted_at: null }],
  ])('%p: a delete sets the flag, a restore clears it', (condition, deleted, restored) => {
    expect(softDeleteWrite(condition, 'delete', now)).toEqual(deleted);
    expect(softDeleteWrite(condition, 'restore', now)).toEqual(restored);
  });

  it('has no write for a side without soft deletes, or a condition it cannot invert', () => {
    expect(softDeleteWrite(undefined, 'delete', now)).toBeUndefined();
    expect(softDeleteWrite({ field: 'deleted_at', op: 'isNull' }, 'delete', now)).toBeUndefined();
    expect(softDeleteWrite({ field: 'state', op: 'in', value: ['a', 'b'] }, 'restore', now)).toBeUndefined();
  });
});
