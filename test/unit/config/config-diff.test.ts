import { describeChanges, diffItems, formatDiff, isEmptyDiff } from '../../../src/config/config-diff';

describe('config diff', () => {
  it('ignores key order and undefined properties', () => {
    expect(describeChanges({ a: 1, b: { c: 2 } }, { b: { c: 2 }, a: 1, d: undefined })).toEqual([]);
  });

  it('names the property path of each change', () => {
    expect(
      describeChanges(
        { schedule: 'a', fields: [{ target: 'x' }, { target: 'y' }], settings: { old: 1 } },
        { schedule: 'b', fields: [{ target: 'x', source: 's' }], settings: { new: 2 } },
      ),
    ).toEqual(['fields[0].source: added "s"', 'fields[1]: removed', 'schedule: "a" → "b"', 'settings.new: added 2', 'settings.old: removed']);
  });

  it('shortens long values and long change lists', () => {
    expect(describeChanges({ v: 'x'.repeat(50) }, { v: 'y' })).toEqual([`v: "${'x'.repeat(38)}… → "y"`]);
    const before = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, i]));
    const after = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, i + 1]));
    expect(describeChanges(before, after)).toEqual(['k0: 0 → 1', 'k1: 1 → 2', 'k2: 2 → 3', 'k3: 3 → 4', 'k4: 4 → 5', '… and 3 more']);
  });

  it('sorts added, changed and removed names', () => {
    const diff = diffItems(
      [
        { name: 'keep', definition: { name: 'keep', v: 1 } },
        { name: 'zz-gone', definition: {} },
        { name: 'a-gone', definition: {} },
        { name: 'same', definition: { name: 'same' } },
      ],
      [{ name: 'new-b' }, { name: 'new-a' }, { name: 'same' }, { name: 'keep', v: 2 } as { name: string }],
    );
    expect(diff).toEqual({ added: ['new-a', 'new-b'], changed: [{ name: 'keep', changes: ['v: 1 → 2'] }], removed: ['a-gone', 'zz-gone'] });
  });

  it('formats a diff for humans', () => {
    const none = { added: [], changed: [], removed: [] };
    expect(formatDiff({ connections: none, mappings: none, jobs: none })).toEqual(['no changes']);
    expect(isEmptyDiff({ connections: none, mappings: none, jobs: none })).toBe(true);
    const diff = { connections: none, mappings: { added: ['m'], changed: [], removed: ['old'] }, jobs: { added: [], changed: [{ name: 'j', changes: ['order: 1 → 2'] }], removed: [] } };
    expect(isEmptyDiff(diff)).toBe(false);
    expect(formatDiff(diff)).toEqual([
      'mappings: 1 added, 0 changed, 1 removed',
      '  + m',
      '  - old',
      'jobs: 0 added, 1 changed, 0 removed',
      '  ~ j',
      '      order: 1 → 2',
    ]);
  });
});
