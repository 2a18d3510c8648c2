import type { SqlDatabase } from '../../../../connectors/sql/dialect';
import { outboxTable } from '../../../../connectors/sql/outbox-dialect';
import { outboxRowMeaning } from '../../../../connectors/sql/outbox-rows';
import type { Mapping } from '../../../../src/model/mapping';
import { JsonText } from '../../../../src/model/json-text';

const db = { dialect: { kind: 'sqlite' } } as unknown as SqlDatabase;
const table = outboxTable({ table: 'outbox' }, db, 'shop');
const mapping: Mapping = {
  name: 'accounts', source: { entity: 'account', key: ['no'] }, target: { entity: 'accounts', key: ['no'] },
  fields: [{ target: 'no', source: 'no' }, { target: 'balance', source: 'balance' }],
};
const row = (over: Record<string, unknown>) => ({ id: 10, aggregate_key: 'A-1', action: 'update', payload: '{"no":"A-1","balance":1}', ...over });

describe('what an outbox row means', () => {
  it('a change: the id as canonical number tracker, numbers a double cannot hold kept exact', () => {
    expect(outboxRowMeaning(row({ id: 9007199254740993n, payload: '{"balance": 12345678901234567890.123456789}' }), table, mapping)).toEqual({
      kind: 'change', changeTracker: '9007199254740993', row: { no: 'A-1', balance: '12345678901234567890.123456789', '$outbox.id': '9007199254740993' },
    });
    expect(outboxRowMeaning(row({ id: '00012', action: ' Delete ', payload: null }), table, mapping)).toEqual({
      kind: 'change', changeTracker: '12', row: { no: 'A-1', '$outbox.id': 12 }, action: 'Delete', missingFieldsAreNull: true,
    });
    // A payload already parsed by the driver (json/jsonb) is taken as it is.
    expect(outboxRowMeaning(row({ payload: { no: 'A-1', balance: 2 } }), table, mapping)).toMatchObject({ kind: 'change', row: { balance: 2 } });
    // One the driver kept as text (numbers beyond a double) is read exactly, as text is.
    expect(outboxRowMeaning(row({ payload: new JsonText('{"no": "A-1", "balance": 0.1000000000000000055511151231257827}') }), table, mapping)).toMatchObject({
      kind: 'change', row: { balance: '0.1000000000000000055511151231257827' },
    });
  });

  it('a dead row, with the reason naming the column', () => {
    const reason = (over: Record<string, unknown>) => {
      const meaning = outboxRowMeaning(row(over), table, mapping);
      return meaning.kind === 'dead' ? meaning.reason : 'not dead';
    };
    expect(reason({ id: 'x1' })).toBe('id "x1" is not a number');
    expect(reason({ action: null })).toBe('action null is not an action of the outbox (known: insert, update, upsert, delete)');
    expect(reason({ aggregate_key: null })).toBe('aggregate_key is null');
    expect(reason({ aggregate_key: '' })).toBe('aggregate_key is empty');
    expect(reason({ payload: '{' })).toMatch(/^payload is not JSON: /);
    expect(reason({ payload: 'null' })).toBe("payload is null, but an update needs the record's fields");
    expect(reason({ payload: '7' })).toBe('payload is not a JSON object (got number)');
    expect(reason({ payload: Buffer.from('{}') })).toBe('payload is bytes, not JSON text');
    expect(reason({ payload: '{"no":"A-2","balance":1}' })).toBe('payload field "no" is "A-2", but aggregate_key is "A-1"');
    expect(reason({ payload: '{"no":"A-1"}' })).toBe('payload has no field "balance" (mapped to "balance")');
  });
});
