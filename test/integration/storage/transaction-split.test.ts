import { TableClient } from '@azure/data-tables';
import { AzureTableStore } from '../../../src/storage/azure-table-store';
import { assertEntityFits, decodeJsonProperties, encodeJsonProperties, entitySizeBytes, MAX_ENTITY_BYTES } from '../../../src/storage/entity-codec';
import type { TableBatchAction } from '../../../src/storage/table-store';
import { MAX_TRANSACTION_BYTES, actionWireBytes, planTransactions } from '../../../src/storage/transaction-plan';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';

/**
 * The 4 MiB transaction limit, asserted on the requests themselves: a pipeline policy records the
 * body of every `$batch` request the SDK sends to a real Azurite (which does not enforce the limit
 * itself, so a successful write alone would prove nothing).
 */
let azurite: TestAzurite;
beforeAll(async () => {
  azurite = await startTestAzurite();
});
afterAll(() => azurite?.stop());

/** A mapping definition whose JSON is about `chars` characters (quotes included, as real ones). */
function largeMapping(name: string, chars: number) {
  const field = (i: number) => ({ target: `target_field_${i}`, source: `source_field_${i}`, operations: [{ op: 'trim' }] });
  const one = JSON.stringify(field(0)).length + 1;
  return { name, fields: Array.from({ length: Math.floor(chars / one) }, (_, i) => field(i)) };
}

async function recordingStore(table: string): Promise<{ store: AzureTableStore; batchBodies: number[] }> {
  const client = TableClient.fromConnectionString(azurite.connectionString, table, { allowInsecureConnection: true });
  const batchBodies: number[] = [];
  const record: Parameters<TableClient['pipeline']['addPolicy']>[0] = {
    name: 'record-batch-bodies',
    sendRequest: async (request, next) => {
      if (new URL(request.url).pathname.endsWith('/$batch')) batchBodies.push(Buffer.byteLength(String(request.body), 'utf8'));
      return next(request);
    },
  };
  client.pipeline.addPolicy(record);
  const store = new AzureTableStore(client);
  await store.createIfMissing();
  return { store, batchBodies };
}

describe('AzureTableStore.submitBatch splits by serialized size', () => {
  it('writes twelve mappings of ~0.9 MiB each (Table Storage’s accounting) of one partition in transactions each under 4 MiB on the wire', async () => {
    const { store, batchBodies } = await recordingStore('storebigbatch');
    const mappings = Array.from({ length: 12 }, (_, i) => largeMapping(`mapping-${i}`, 440_000));
    const actions: TableBatchAction[] = mappings.map((m) => ({ kind: 'upsert', row: { partitionKey: 'config', rowKey: m.name, properties: encodeJsonProperties(m) } }));
    for (const a of actions) if (a.kind === 'upsert') assertEntityFits(a.row.rowKey, a.row.partitionKey, a.row.rowKey, a.row.properties);
    const first = actions[0].kind === 'upsert' ? actions[0].row : undefined;
    expect(entitySizeBytes('config', 'mapping-0', first!.properties)).toBeGreaterThan(0.8 * MAX_ENTITY_BYTES);

    await store.submitBatch(actions);

    // Twelve actions, far under 100, over 4 MiB together: only the size can have split them.
    const plan = planTransactions(actions);
    expect(batchBodies.reduce((a, b) => a + b, 0)).toBeGreaterThan(MAX_TRANSACTION_BYTES);
    expect(batchBodies).toHaveLength(plan.length);
    expect(batchBodies.length).toBeGreaterThanOrEqual(2);
    for (const bytes of batchBodies) expect(bytes).toBeLessThan(MAX_TRANSACTION_BYTES);
    // The estimate bounds the real request from above, and not by much (envelope ~250 B, ~600 B per part).
    plan.forEach((transaction, i) => {
      const estimate = transaction.reduce((n, a) => n + actionWireBytes(a), 0);
      expect(batchBodies[i]).toBeLessThanOrEqual(estimate + 1024);
      expect(batchBodies[i]).toBeGreaterThan(estimate - 1024 * transaction.length);
    });
    const stored = await store.queryPartition('config');
    expect(stored.map((r) => r.rowKey).sort()).toEqual(mappings.map((m) => m.name).sort());
    expect(decodeJsonProperties('mapping "mapping-7"', stored.find((r) => r.rowKey === 'mapping-7')!.properties)).toEqual(mappings[7]);
  }, 60_000);

  it('still sends small rows in transactions of 100', async () => {
    const { store, batchBodies } = await recordingStore('storesmallbatch');
    await store.submitBatch(Array.from({ length: 150 }, (_, i) => ({ kind: 'upsert' as const, row: { partitionKey: 'p', rowKey: `r${i}`, properties: { I: i } } })));
    expect(batchBodies).toHaveLength(2);
    expect(await store.queryPartition('p')).toHaveLength(150);
  });
});
