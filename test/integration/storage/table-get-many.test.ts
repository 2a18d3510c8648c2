import { useTableStorage } from '../../support/table-storage';

const tables = useTableStorage();

describe('TableStore.getMany against Azurite', () => {
  it('finds the existing rows of many keys of one partition, and only of that partition', async () => {
    const table = await tables().table('getmany');
    const keys = Array.from({ length: 100 }, (_, i) => `k${String(i).padStart(3, '0')}`);
    await table.submitBatch(keys.filter((_, i) => i % 3 === 0).map((rowKey) => ({ kind: 'upsert' as const, row: { partitionKey: 'p', rowKey, properties: { N: Number(rowKey.slice(1)) } } })));
    await table.upsert({ partitionKey: 'other', rowKey: 'k001', properties: { N: -1 } });
    // A quote in a key must not break the filter.
    await table.upsert({ partitionKey: 'p', rowKey: "it's", properties: { N: 1000 } });
    const found = await table.getMany('p', [...keys, 'k001', "it's", 'missing']);
    const expected = keys.filter((_, i) => i % 3 === 0);
    expect([...found.keys()].sort()).toEqual([...expected, "it's"].sort());
    expect(found.get('k099')?.properties.N).toBe(99);
    expect(found.has('k001')).toBe(false);
    expect(await table.getMany('p', [])).toEqual(new Map());
  });
});
