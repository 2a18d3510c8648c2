import { MAX_TRANSACTION_ACTIONS, type TableBatchAction } from '../../../src/storage/table-store';
import {
  MAX_TRANSACTION_BYTES,
  SUBREQUEST_OVERHEAD_BYTES,
  TRANSACTION_ENVELOPE_BYTES,
  actionWireBytes,
  planTransactions,
} from '../../../src/storage/transaction-plan';

const upsert = (rowKey: string, text = '', partitionKey = 'config'): TableBatchAction => ({
  kind: 'upsert',
  row: { partitionKey, rowKey, properties: { Definition_0: text } },
});
const sizes = (plan: TableBatchAction[][]) => plan.map((t) => t.length);
const keys = (plan: TableBatchAction[][]) => plan.flat().map((a) => (a.kind === 'upsert' ? a.row.rowKey : a.rowKey));

describe('actionWireBytes', () => {
  it('counts the JSON body as the SDK writes it (UTF-8, date annotations), the keys in the URL and the part overhead', () => {
    const at = new Date('2026-01-01T00:00:00.000Z');
    const action: TableBatchAction = { kind: 'upsert', row: { partitionKey: 'p', rowKey: 'ä', properties: { S: 'x"y', N: 7, B: true, D: at, Gone: null } } };
    const body = '{"PartitionKey":"p","RowKey":"ä","S":"x\\"y","N":7,"B":true,"D":"2026-01-01T00:00:00.000Z","D@odata.type":"Edm.DateTime"}';
    expect(actionWireBytes(action)).toBe(SUBREQUEST_OVERHEAD_BYTES + 3 * Buffer.byteLength('pä') + Buffer.byteLength(body));
  });

  it('a delete has no body', () => {
    expect(actionWireBytes({ kind: 'delete', partitionKey: 'p', rowKey: 'r' })).toBe(SUBREQUEST_OVERHEAD_BYTES + 6);
  });
});

describe('planTransactions', () => {
  it('splits at 100 actions, keeping the order', () => {
    const actions = Array.from({ length: 230 }, (_, i) => upsert(`k${String(i).padStart(3, '0')}`));
    const plan = planTransactions(actions);
    expect(sizes(plan)).toEqual([MAX_TRANSACTION_ACTIONS, MAX_TRANSACTION_ACTIONS, 30]);
    expect(keys(plan)).toEqual(keys([actions]));
  });

  it('splits by size before 100 actions: ten ~900 KiB mappings make three transactions under 4 MiB', () => {
    const actions = Array.from({ length: 10 }, (_, i) => upsert(`mapping-${i}`, 'x'.repeat(900 * 1024)));
    const plan = planTransactions(actions);
    expect(sizes(plan)).toEqual([4, 4, 2]);
    for (const transaction of plan) {
      const bytes = transaction.reduce((n, a) => n + actionWireBytes(a), 0);
      expect(bytes).toBeLessThanOrEqual(MAX_TRANSACTION_BYTES - TRANSACTION_ENVELOPE_BYTES);
    }
    expect(keys(plan)).toEqual(keys([actions]));
  });

  it('counts escaped characters: JSON text in a property takes more bytes than characters', () => {
    // 600 K characters of `"` are 1.2 MB on the wire (each written as \"): three fit, four do not.
    const actions = Array.from({ length: 4 }, (_, i) => upsert(`quoted-${i}`, '"'.repeat(600 * 1024)));
    expect(sizes(planTransactions(actions))).toEqual([3, 1]);
  });

  it('fills a transaction up to the limit exactly', () => {
    const one = actionWireBytes(upsert('a', 'x'.repeat(1000)));
    const actions = Array.from({ length: 5 }, (_, i) => upsert(String.fromCharCode(97 + i), 'x'.repeat(1000)));
    expect(sizes(planTransactions(actions, { maxBytes: 2 * one }))).toEqual([2, 2, 1]);
    expect(sizes(planTransactions(actions, { maxBytes: 2 * one - 1 }))).toEqual([1, 1, 1, 1, 1]);
  });

  it('gives an action larger than the limit a transaction of its own', () => {
    const actions = [upsert('small'), upsert('huge', 'x'.repeat(5000)), upsert('small2')];
    expect(sizes(planTransactions(actions, { maxBytes: 4000 }))).toEqual([1, 1, 1]);
  });

  it('plans nothing for no actions', () => {
    expect(planTransactions([])).toEqual([]);
  });
});
