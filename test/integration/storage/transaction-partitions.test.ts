import { TableClient } from '@azure/data-tables';
import { AzureTableStore, PARTITIONS_IN_FLIGHT } from '../../../src/storage/azure-table-store';
import type { TableBatchAction } from '../../../src/storage/table-store';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';

/**
 * `submitBatch` sends different partitions' transactions side by side (each is a round trip to
 * the service), at most {@link PARTITIONS_IN_FLIGHT} at once, and one partition's in order. Seen on
 * the requests: a pipeline policy counts the `$batch` requests in flight to a real Azurite.
 */
let azurite: TestAzurite;
beforeAll(async () => {
  azurite = await startTestAzurite();
});
afterAll(() => azurite?.stop());

async function countingStore(table: string, partitionsInFlight?: number): Promise<{ store: AzureTableStore; peak: () => number; batches: () => number }> {
  const client = TableClient.fromConnectionString(azurite.connectionString, table, { allowInsecureConnection: true });
  let inFlight = 0;
  let peak = 0;
  let batches = 0;
  client.pipeline.addPolicy({
    name: 'count-batches-in-flight',
    sendRequest: async (request, next) => {
      if (!new URL(request.url).pathname.endsWith('/$batch')) return next(request);
      batches++;
      peak = Math.max(peak, ++inFlight);
      try {
        return await next(request);
      } finally {
        inFlight--;
      }
    },
  });
  const store = new AzureTableStore(client, {}, 'point', partitionsInFlight);
  await store.createIfMissing();
  return { store, peak: () => peak, batches: () => batches };
}

const upsert = (partitionKey: string, rowKey: string, v: number): TableBatchAction => ({ kind: 'upsert', row: { partitionKey, rowKey, properties: { V: v } } });

describe('AzureTableStore.submitBatch over many partitions', () => {
  it('sends partitions side by side, at most 8 at once, each partition in order', async () => {
    const { store, peak, batches } = await countingStore('partsinflight');
    const actions: TableBatchAction[] = [];
    for (let p = 0; p < 16; p++) {
      const partition = p.toString(16);
      // 150 actions: two transactions; the second replaces row r000 and deletes row r001 of the first.
      for (let i = 0; i < 100; i++) actions.push(upsert(partition, `r${String(i).padStart(3, '0')}`, 1));
      for (let i = 100; i < 148; i++) actions.push(upsert(partition, `r${String(i).padStart(3, '0')}`, 1));
      actions.push(upsert(partition, 'r000', 2), { kind: 'delete', partitionKey: partition, rowKey: 'r001' });
    }
    await store.submitBatch(actions);
    expect(batches()).toBe(32);
    expect(peak()).toBeGreaterThan(1);
    expect(peak()).toBeLessThanOrEqual(PARTITIONS_IN_FLIGHT);
    const rows = await store.list();
    expect(rows).toHaveLength(16 * 147);
    expect(rows.filter((r) => r.rowKey === 'r000').map((r) => r.properties.V)).toEqual(Array(16).fill(2));
  });

  it('sends one transaction at a time when told (Azurite)', async () => {
    const { store, peak, batches } = await countingStore('partsoneatatime', 1);
    await store.submitBatch(Array.from({ length: 16 }, (_, p) => upsert(p.toString(16), 'r', 1)));
    expect({ batches: batches(), peak: peak() }).toEqual({ batches: 16, peak: 1 });
  });

  it('rejects when one partition fails, after the others settled; their transactions stay applied', async () => {
    const { store } = await countingStore('partsfailing');
    const actions: TableBatchAction[] = [upsert('a', 'r1', 1), { kind: 'delete', partitionKey: 'b', rowKey: 'missing' }, upsert('c', 'r1', 1)];
    await expect(store.submitBatch(actions)).rejects.toMatchObject({ name: 'PermanentError' });
    const rows = await store.list();
    expect(rows.map((r) => r.partitionKey)).toEqual(['a', 'c']);
  });
});
