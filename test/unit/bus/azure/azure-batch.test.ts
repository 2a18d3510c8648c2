import { AzureMessageBatch } from '../../../../src/bus/azure/azure-batch';
import { BusError, isBusError, type MessageBatch } from '../../../../src/bus/message-bus';
import { decodeBatch, RealSdkBatches } from './support/real-sdk-batch';

describe('AzureMessageBatch over a real SDK batch', () => {
  const batches = new RealSdkBatches();
  const owner = {};
  afterAll(() => batches.close());

  async function batchOf(maxSizeInBytes: number): Promise<AzureMessageBatch> {
    return new AzureMessageBatch('sbqnormal', await batches.create('sbqnormal', maxSizeInBytes), owner);
  }

  it('reports the queue, the limit from the link and an empty start', async () => {
    const batch = await batchOf(262_144);
    expect([batch.queue, batch.count, batch.sizeInBytes, batch.maxSizeInBytes]).toEqual(['sbqnormal', 0, 0, 262_144]);
  });

  it('adds while the encoded size fits and answers false (never throws) when full', async () => {
    const batch = await batchOf(1_024);
    const body = 'x'.repeat(100);
    let added = 0;
    while (batch.tryAdd({ body, messageId: `m-${added}` })) {
      added += 1;
      expect(batch.count).toBe(added);
      expect(batch.sizeInBytes).toBeLessThanOrEqual(1_024);
    }
    // 100 body bytes plus AMQP framing: several fit, not ten.
    expect(added).toBeGreaterThanOrEqual(5);
    expect(added).toBeLessThan(10);
    expect(batch.sizeInBytes).toBeGreaterThan(added * 100);
    const sizeWhenFull = batch.sizeInBytes;
    expect(batch.tryAdd({ body, messageId: 'again' })).toBe(false);
    expect([batch.count, batch.sizeInBytes]).toEqual([added, sizeWhenFull]);
    const onTheWire = decodeBatch(AzureMessageBatch.unwrap(batch, owner)).map((m) => m.message_id);
    expect(onTheWire).toEqual(Array.from({ length: added }, (_, i) => `m-${i}`));
  });

  it('a single message over the limit does not fit even an empty batch', async () => {
    const batch = await batchOf(1_024);
    expect(batch.tryAdd({ body: new Uint8Array(2_000) })).toBe(false);
    expect(batch.count).toBe(0);
    expect(batch.sizeInBytes).toBe(0);
  });

  it('throws InvalidArgument for a message the SDK rejects whatever the size (message id over 128 characters)', async () => {
    const batch = await batchOf(262_144);
    let thrown: unknown;
    try {
      batch.tryAdd({ body: 'b', messageId: 'i'.repeat(129) });
    } catch (err) {
      thrown = err;
    }
    expect(isBusError(thrown, 'InvalidArgument')).toBe(true);
    expect((thrown as BusError).message).toBe(
      "add to batch on queue 'sbqnormal' failed (Error): Length of 'messageId' property on the message cannot be greater than 128 characters.",
    );
    expect(batch.count).toBe(0);
  });

  it('unwrap gives the SDK batch to its owner only', async () => {
    const batch = await batchOf(262_144);
    expect(AzureMessageBatch.unwrap(batch, owner).maxSizeInBytes).toBe(262_144);
    expect(() => AzureMessageBatch.unwrap(batch, {})).toThrow("sendBatch on queue 'sbqnormal' failed: the batch was not created by this bus");
    const foreign: MessageBatch = { queue: 'sbqnormal', count: 0, sizeInBytes: 0, maxSizeInBytes: 1, tryAdd: () => false };
    expect(() => AzureMessageBatch.unwrap(foreign, owner)).toThrow(BusError);
  });
});
