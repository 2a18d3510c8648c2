import { defaultConnectorRegistry } from '../../../connectors/default-registry';
import { ConfigValidationError } from '../../../src/platform/config-issue';
import { validateConfig } from '../../../src/config/validate-config';

const connections = [
  { name: 'shop', type: 'sqlite', settings: { file: 'shop.db', outbox: { table: 'outbox' } } },
  { name: 'erp', type: 'sqlite', settings: { file: 'erp.db' } },
];
const mappings = [{ name: 'customers', source: { entity: 'customer', key: ['id'] }, target: { entity: 'customers', key: ['id'] }, fields: [{ target: 'id', source: 'id' }] }];
const job = (name: string, source: string, more: object = {}) => ({ name, schedule: '0 */5 * * * *', source, target: 'erp', mapping: 'customers', watermark: { type: 'number', field: 'id' }, ...more });
const validate = (jobs: object[]) => validateConfig({ connections, mappings, jobs }, { connectionTypes: defaultConnectorRegistry().connectionTypes() });

describe('jobs reading an outbox', () => {
  it('pass with a number watermark and neither filter nor soft delete', () => {
    expect(validate([job('ok', 'shop')]).jobs).toHaveLength(1);
  });

  it('name a watermark type, a filter and a soft delete the outbox cannot honour; other connections\' jobs may have them', () => {
    let error: unknown;
    try {
      validate([
        job('plain', 'erp', { watermark: { type: 'datetime', field: 'modified' }, filter: [{ field: 'x', op: 'eq', value: 1 }] }),
        job('bad', 'shop', { watermark: { type: 'datetime', field: 'created_at' }, filter: [{ field: 'x', op: 'eq', value: 1 }], softDelete: { field: 'gone', op: 'eq', value: true } }),
      ]);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigValidationError);
    expect((error as ConfigValidationError).issues.map((i) => [i.path, i.message])).toEqual([
      ['jobs[1].watermark.type', 'must be number when reading the outbox of connection "shop" (the outbox id is the change tracker), got "datetime"'],
      ['jobs[1].filter', 'is not supported when reading the outbox of connection "shop" (the application decides what it writes to the outbox)'],
      ['jobs[1].softDelete', 'is not supported when reading the outbox of connection "shop" (the application writes a delete row instead)'],
    ]);
  });
});
