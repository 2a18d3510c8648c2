import { JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage, type JsonValue } from '../../../../src/model/queue-message';
import type { RecordedExchange } from '../odata/replay-fetch';
import { API, openDataverse, trackingJob } from './dataverse-test-kit';
import { batchExchange, noContent } from './batch-exchanges';
import { columnDefinitions, decimalPrecisions, doublePrecisions, moneyPrecisions } from './column-definitions';

const products: Mapping = { name: 'to-products', source: { entity: 'items', key: ['no'] }, target: { entity: 'products', key: ['productnumber'] }, fields: [] };
const message = (fields: Record<string, JsonValue>) =>
  createQueueMessage({ jobName: 'j', action: JobActionType.NewUpdate, sourceKey: String(fields.productnumber), targetKey: { productnumber: fields.productnumber }, changeTracker: '1', fields });
const patch = (number: string, body: Record<string, unknown>): RecordedExchange => ({
  request: { method: 'PATCH', url: `${API}products(productnumber='${number}')`, body },
  response: { status: 204 },
});
const definitions = [columnDefinitions(), decimalPrecisions(), doublePrecisions(), moneyPrecisions()];
const BIG = '1234567890123456789';
const RATE = '12345678901.1234567890';

describe('Dataverse target: values typed by the table\'s column definitions', () => {
  it('writes digit strings of BigInt, Decimal, Money, Double and Integer columns as JSON numbers with every digit, reading the definitions once', async () => {
    const dv = openDataverse([
      ...definitions,
      patch('P-1', { new_quantity: Number(BIG), new_rate: Number(RATE), price: 12.5, new_weight: 0.1, new_count: 7, name: '0042' }),
      patch('P-2', { new_quantity: -9223372036854775808, new_rate: 1 }),
    ]);
    const target = dv.target();
    await target.upsert(message({ productnumber: 'P-1', new_quantity: BIG, new_rate: RATE, price: '12.50', new_weight: '0.1', new_count: '7', name: '0042' }), products);
    await target.upsert(message({ productnumber: 'P-2', new_quantity: '-9223372036854775808', new_rate: 1 }), products);
    dv.replay.assertDone();
    // The replay compares parsed JSON; the request text shows the digits a double would lose.
    const bodies = dv.replay.sent.filter((r) => r.method === 'PATCH').map((r) => r.body);
    expect(bodies).toEqual([
      `{"new_quantity":${BIG},"new_rate":${RATE},"price":12.50,"new_weight":0.1,"new_count":7,"name":"0042"}`,
      '{"new_quantity":-9223372036854775808,"new_rate":1}',
    ]);
    expect(dv.warnings).toEqual([]);
  });

  it('reads no definitions while no message carries digits or bytes', async () => {
    const dv = openDataverse([patch('P-3', { name: 'Bolt', price: 3 })]);
    await dv.target().upsert(message({ productnumber: 'P-3', name: 'Bolt', price: 3 }), products);
    dv.replay.assertDone();
  });

  it.each([
    ['new_quantity', '9223372036854775808', 'column "new_quantity" of products (BigInt) (Edm.Int64): 9223372036854775808 is beyond 64 bits'],
    ['new_quantity', '1.5', 'column "new_quantity" of products (BigInt) (Edm.Int64): "1.5" is not an integer'],
    ['new_weight', '0.123456', 'column "new_weight" of products (Double, 5 fraction digits): 0.123456 has 6 fraction digits; the column would round it'],
    ['new_rate', '1.12345678901', 'column "new_rate" of products (Decimal, 10 fraction digits): 1.12345678901 has 11 fraction digits; the column would round it'],
    ['price', '12.345', 'column "price" of products (Money, 2 fraction digits): 12.345 has 3 fraction digits; the column would round it'],
    ['new_listprice', '1.23456', 'column "new_listprice" of products (Money, 4 fraction digits): 1.23456 has 5 fraction digits; the column would round it'],
    ['new_document', { $binary: 'AAH/' }, 'column "new_document" of products (FileType): bytes can be written only to an image column (Dataverse takes other files by their own upload requests)'],
    ['description', { $binary: 'AAH/' }, 'column "description" of products (MemoType): bytes can be written only to an image column (Dataverse takes other files by their own upload requests)'],
  ] as Array<[string, JsonValue, string]>)('fails %s = %j naming the column, before anything is written', async (column, value, reason) => {
    const dv = openDataverse(definitions);
    await expect(dv.target().upsert(message({ productnumber: 'P-9', [column]: value }), products)).rejects.toMatchObject({ name: 'PermanentError', message: reason });
    dv.replay.assertDone();
  });

  it('once the definitions are read, text that is no number fails naming its numeric column', async () => {
    const dv = openDataverse([...definitions, patch('P-8', { new_count: 1 })]);
    const target = dv.target();
    await target.upsert(message({ productnumber: 'P-8', new_count: '1' }), products);
    await expect(target.upsert(message({ productnumber: 'P-9', new_rate: '12,5' }), products)).rejects.toMatchObject({
      name: 'PermanentError', message: 'column "new_rate" of products (Decimal, 10 fraction digits): "12,5" is not a decimal number',
    });
    dv.replay.assertDone();
  });

  it('writes a JSON document beyond a double ({"$jsonText"}) as its text into a Memo column, and fails it naming any other column', async () => {
    const doc = '{"id": 12345678901234567890, "price": 0.1000000000000000055511151231257827}';
    const dv = openDataverse([...definitions, patch('P-5', { description: doc })]);
    const target = dv.target();
    await target.upsert(message({ productnumber: 'P-5', description: { $jsonText: doc } }), products);
    expect(dv.replay.sent.filter((r) => r.method === 'PATCH').map((r) => r.body)).toEqual([JSON.stringify({ description: doc })]);
    await expect(target.upsert(message({ productnumber: 'P-6', new_count: { $jsonText: doc } }), products)).rejects.toMatchObject({
      name: 'PermanentError', message: expect.stringMatching(/^column "new_count" of products \(.+\): a JSON document with numbers beyond a double can be written only as text, to a String or Memo column$/),
    });
    dv.replay.assertDone();
  });

  it('writes bytes into an image column as base64', async () => {
    const dv = openDataverse([...definitions, patch('P-4', { entityimage: 'AAH/' })]);
    await dv.target().upsert(message({ productnumber: 'P-4', entityimage: { $binary: 'AAH/' } }), products);
    dv.replay.assertDone();
  });

  it('fails one item of a $batch alone for a value its column cannot take; the others go typed (the multipart text is compared exactly)', async () => {
    const part = (no: string, body: Record<string, unknown>) => ({ method: 'PATCH' as const, url: `${API}products(productnumber='${no}')`, body });
    const dv = openDataverse([...definitions, batchExchange('the writable items', [part('P-5', { new_quantity: 5 }), part('P-7', { new_rate: 0.5 })], [noContent(), noContent()])]);
    const outcomes = await dv.target().applyBatch!({
      job: trackingJob, action: JobActionType.NewUpdate, mapping: products,
      messages: [message({ productnumber: 'P-5', new_quantity: '5' }), message({ productnumber: 'P-6', new_quantity: 'five' }), message({ productnumber: 'P-7', new_rate: '0.5' })],
    });
    dv.replay.assertDone();
    expect(outcomes[0]).toEqual({ status: 'applied' });
    expect(outcomes[2]).toEqual({ status: 'applied' });
    expect(outcomes[1]).toMatchObject({ status: 'failed', error: { name: 'PermanentError', message: 'column "new_quantity" of products (BigInt) (Edm.Int64): "five" is not an integer' } });
  });

  it('pauses the target (ConfigError) when no table has the entity set name', async () => {
    const dv = openDataverse([columnDefinitions('prodcts', [])]);
    await expect(dv.target().upsert(message({ productnumber: 'P-7', new_quantity: '1' }), { ...products, target: { entity: 'prodcts', key: ['productnumber'] } })).rejects.toMatchObject({
      name: 'ConfigError', message: 'dataverse connection "crm": no table has the entity set name "prodcts"',
    });
  });
});
