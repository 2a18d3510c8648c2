import { TableClient } from '@azure/data-tables';
import { AzureTableStore, type ManyLookups } from '../../../src/storage/azure-table-store';
import { isEmulator, openTableStorage } from '../../../src/storage/table-client-factory';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';

/**
 * `getMany` looks rows up by point reads (Azure: ORed row keys are a partition scan there) or by
 * queries of ORed row keys (Azurite); both against a real Azurite, with a pipeline policy that
 * records what each request asked for.
 */
let azurite: TestAzurite;
beforeAll(async () => {
  azurite = await startTestAzurite();
});
afterAll(() => azurite?.stop());

async function recordingStore(table: string, lookups: ManyLookups): Promise<{ store: AzureTableStore; requests: string[] }> {
  const client = TableClient.fromConnectionString(azurite.connectionString, table, { allowInsecureConnection: true });
  const requests: string[] = [];
  client.pipeline.addPolicy({
    name: 'record-requests',
    sendRequest: async (request, next) => {
      const url = new URL(request.url);
      requests.push(`${request.method} ${decodeURIComponent(url.pathname.split('/').pop() ?? '')}${url.searchParams.has('$filter') ? ` ?$filter=${url.searchParams.get('$filter')}` : ''}`);
      return next(request);
    },
  });
  const store = new AzureTableStore(client, {}, lookups);
  await store.createIfMissing();
  return { store, requests };
}

describe.each<ManyLookups>(['point', 'query'])('TableStore.getMany against Azurite (%s lookups)', (lookups) => {
  it('finds the existing rows of many keys of one partition, and only of that partition', async () => {
    const { store: table, requests } = await recordingStore(`getmany${lookups}`, lookups);
    const keys = Array.from({ length: 100 }, (_, i) => `k${String(i).padStart(3, '0')}`);
    await table.submitBatch(keys.filter((_, i) => i % 3 === 0).map((rowKey) => ({ kind: 'upsert' as const, row: { partitionKey: 'p', rowKey, properties: { N: Number(rowKey.slice(1)) } } })));
    await table.upsert({ partitionKey: 'other', rowKey: 'k001', properties: { N: -1 } });
    // A quote in a key must not break the filter or the point read.
    await table.upsert({ partitionKey: 'p', rowKey: "it's", properties: { N: 1000 } });
    requests.length = 0;
    const found = await table.getMany('p', [...keys, 'k001', "it's", 'missing', 'k003']);
    const expected = keys.filter((_, i) => i % 3 === 0);
    expect([...found.keys()].sort()).toEqual([...expected, "it's"].sort());
    expect(found.get('k099')?.properties.N).toBe(99);
    expect(found.get("it's")?.properties.N).toBe(1000);
    expect(found.has('k001')).toBe(false);
    if (lookups === 'point') {
      // One GET of one entity per distinct key (102), no query.
      expect(requests).toHaveLength(102);
      expect(requests.every((r) => r.startsWith(`GET getmanypoint(PartitionKey='p',RowKey=`) && !r.includes('$filter'))).toBe(true);
    } else {
      // 102 keys, 14 a query: 8 queries.
      expect(requests).toHaveLength(8);
      expect(requests.every((r) => r.startsWith("GET getmanyquery() ?$filter=PartitionKey eq 'p' and (RowKey eq"))).toBe(true);
    }
    requests.length = 0;
    expect(await table.getMany('p', [])).toEqual(new Map());
    expect(requests).toEqual([]);
  });
});

describe('TableStore.getMany by point reads, many calls at once', () => {
  it('keeps at most 64 reads of one store in flight, whatever the number of calls', async () => {
    const client = TableClient.fromConnectionString(azurite.connectionString, 'getmanycap', { allowInsecureConnection: true });
    let inFlight = 0;
    let most = 0;
    client.pipeline.addPolicy({
      name: 'count-in-flight',
      sendRequest: async (request, next) => {
        most = Math.max(most, ++inFlight);
        try {
          return await next(request);
        } finally {
          inFlight--;
        }
      },
    });
    const store = new AzureTableStore(client, {}, 'point');
    await store.createIfMissing();
    await store.upsert({ partitionKey: 'p', rowKey: 'c2-k7', properties: { N: 7 } });
    const calls = Array.from({ length: 4 }, (_, c) => store.getMany('p', Array.from({ length: 50 }, (_, i) => `c${c}-k${i}`)));
    const found = await Promise.all(calls);
    expect(found.map((m) => m.size)).toEqual([0, 0, 1, 0]);
    expect(most).toBeGreaterThan(32); // the calls do run side by side …
    expect(most).toBeLessThanOrEqual(64); // … within the store's cap
  });
});

describe('openTableStorage: lookups and transactions by what the connection string names', () => {
  it('queries on Azurite, one transaction at a time; reads points elsewhere', async () => {
    expect(isEmulator(azurite.connectionString)).toBe(true);
    expect(isEmulator('UseDevelopmentStorage=true')).toBe(true);
    expect(isEmulator('DefaultEndpointsProtocol=https;AccountName=contosodata;AccountKey=a2V5;EndpointSuffix=core.windows.net')).toBe(false);
    expect(isEmulator('DefaultEndpointsProtocol=https;AccountName=devstoreaccount10;AccountKey=a2V5;EndpointSuffix=core.windows.net')).toBe(false);
    const storage = await openTableStorage({ storageConnectionString: azurite.connectionString, dataDir: '/nonexistent' });
    try {
      const store = (await storage.table('lookupmode')) as AzureTableStore;
      expect({ lookups: store.lookups, partitionsInFlight: store.partitionsInFlight }).toEqual({ lookups: 'query', partitionsInFlight: 1 });
    } finally {
      await storage.close();
    }
  });
});
