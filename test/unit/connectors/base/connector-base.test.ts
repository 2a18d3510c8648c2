import { ConnectorBase, toJsonValue } from '../../../../connectors/base/connector-base';
import { type RelatedValueLookup, ResolverCache } from '../../../../connectors/base/resolvers';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { deserializeQueueMessage, serializeQueueMessage } from '../../../../src/model/queue-message';
import { splitSourceKey } from '../../../../src/model/source-key';

const job: Job = {
  name: 'customers-to-crm', order: 1, schedule: '0 */5 * * * *', enabled: true, source: 'erp', target: 'crm',
  mapping: 'customers', priority: 'normal', watermark: { type: 'datetime', field: 'modified' }, filter: [],
  action: JobActionType.NewUpdate, skipOutdatedMessages: false, skipUnchanged: false, pageSize: 500, lookbackSeconds: 0,
};

const mapping: Mapping = {
  name: 'customers',
  source: { entity: 'customer', key: ['company', 'no'] },
  target: { entity: 'account', key: ['accountnumber'] },
  fields: [
    { target: 'accountnumber', source: 'no', operations: [{ op: 'trim' }] },
    { target: 'name', source: 'name', operations: [{ op: 'trim' }, { op: 'upper' }] },
    { target: 'origin', constant: 'erp' },
    { target: 'country', source: 'country', resolver: { entity: 'country', matchField: 'code', returnField: 'id' } },
  ],
};

const row = { company: 'A|B', no: ' 10\\1 ', name: ' acme ', country: 'DE', modified: '2026-01-02 03:04:05.123456' };
const countries: RelatedValueLookup = {
  async lookupRelated(entity, matchField, returnField, value) {
    expect([entity, matchField, returnField]).toEqual(['country', 'code', 'id']);
    return ({ DE: 17, FR: 33 } as Record<string, number>)[String(value)];
  },
};
const clock = { now: () => new Date('2026-02-03T04:05:06.789Z') };

describe('ConnectorBase.serialize', () => {
  it('builds key, mapped fields, target key and canonical change tracker', async () => {
    const message = await ConnectorBase.serialize(row, mapping, job, { clock, lookup: countries });
    expect(message).toEqual({
      version: 1,
      jobName: 'customers-to-crm',
      action: JobActionType.NewUpdate,
      sourceKey: 'A\\|B| 10\\\\1 ',
      targetKey: { accountnumber: '10\\1' },
      changeTracker: '2026-01-02T03:04:05.1234560Z',
      fields: { accountnumber: '10\\1', name: 'ACME', origin: 'erp', country: 17 },
      correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      detectedAt: '2026-02-03T04:05:06.789Z',
    });
    expect(splitSourceKey(message.sourceKey)).toEqual(['A|B', ' 10\\1 ']);
    expect(deserializeQueueMessage(serializeQueueMessage(message))).toEqual(message);
  });

  it('takes the action and change tracker the connector passes, and gives InvokeAction its parameters', async () => {
    const deleted = await ConnectorBase.serialize(row, mapping, job, { clock, lookup: countries, action: JobActionType.Delete, changeTracker: 'x' });
    expect([deleted.action, deleted.changeTracker, deleted.actionParameters]).toEqual([JobActionType.Delete, 'x', undefined]);
    const invoke = await ConnectorBase.serialize(row, mapping, { ...job, action: JobActionType.InvokeAction }, { clock, lookup: countries });
    expect(invoke.actionParameters).toEqual(invoke.fields);
  });

  it('keeps an unknown watermark type as text', async () => {
    const message = await ConnectorBase.serialize({ ...row, modified: 42 }, mapping, { ...job, watermark: { type: 'rowver', field: 'modified' } }, { clock, lookup: countries });
    expect(message.changeTracker).toBe('42');
  });

  it('resolves a missing related value to null by default', async () => {
    const message = await ConnectorBase.serialize({ ...row, country: 'XX' }, mapping, job, { clock, lookup: countries });
    expect(message.fields.country).toBeNull();
  });

  it('fails with exact messages when the mapping does not fit the row', async () => {
    await expect(ConnectorBase.serialize({ ...row, no: null }, mapping, job, { clock, lookup: countries })).rejects.toMatchObject({
      name: 'PermanentError', message: 'mapping "customers": source key field "no" is null',
    });
    await expect(ConnectorBase.serialize({ ...row, company: '' }, mapping, job, { clock, lookup: countries })).rejects.toMatchObject({
      name: 'PermanentError', message: 'mapping "customers": source key field "company" is empty',
    });
    const { name: _name, ...withoutName } = row;
    await expect(ConnectorBase.serialize(withoutName, mapping, job, { clock, lookup: countries })).rejects.toMatchObject({
      name: 'ConfigError', message: 'mapping "customers": field "name": source field "name" is not in the customer record',
    });
    const lenient = await ConnectorBase.serialize(withoutName, mapping, job, { clock, lookup: countries, missingFieldsAreNull: true });
    expect(lenient.fields.name).toBeNull();
    await expect(
      ConnectorBase.serialize(row, { ...mapping, target: { entity: 'account', key: ['id'] } }, job, { clock, lookup: countries }),
    ).rejects.toMatchObject({ name: 'ConfigError', message: 'mapping "customers": target key field "id" is not a mapped field' });
    await expect(ConnectorBase.serialize(row, mapping, job, { clock })).rejects.toMatchObject({
      name: 'ConfigError', message: 'mapping "customers": field "country": this source connector does not support resolvers',
    });
    await expect(ConnectorBase.serialize({ ...row, modified: null }, mapping, job, { clock, lookup: countries })).rejects.toMatchObject({
      name: 'PermanentError', message: 'job "customers-to-crm": watermark field "modified" is null',
    });
    await expect(ConnectorBase.serialize({ ...row, modified: 'soon' }, mapping, job, { clock, lookup: countries })).rejects.toMatchObject({
      name: 'PermanentError',
    });
  });

  it('uses a per-run cache so a related value is looked up once', async () => {
    const cache = new ResolverCache(countries);
    for (const country of ['DE', 'DE', 'FR', 'DE', 'XX', 'XX']) await ConnectorBase.serialize({ ...row, country }, mapping, job, { clock, lookup: cache });
    expect(cache.sourceLookups).toBe(3);
  });
});

describe('toJsonValue', () => {
  it('carries driver values as JSON', () => {
    expect(toJsonValue(new Date('2026-01-01T00:00:00Z'), 'f')).toBe('2026-01-01T00:00:00.000Z');
    expect(toJsonValue(BigInt(5), 'f')).toBe(5);
    expect(toJsonValue(BigInt('9007199254740993'), 'f')).toBe('9007199254740993');
    expect(toJsonValue(Buffer.from('hi'), 'f')).toEqual({ $binary: 'aGk=' });
    expect(toJsonValue(new Uint8Array([0, 255]), 'f')).toEqual({ $binary: 'AP8=' });
    // A source object shaped like a tag is wrapped, so that no target takes it for bytes.
    expect(toJsonValue({ $binary: 'AAE=' }, 'f')).toEqual({ $json: { $binary: 'AAE=' } });
    expect(toJsonValue({ $json: 1 }, 'f')).toEqual({ $json: { $json: 1 } });
    expect(toJsonValue({ $binary: 'AAE=', other: 1 }, 'f')).toEqual({ $binary: 'AAE=', other: 1 });
    expect(toJsonValue({ a: [1, undefined, new Date(0)] }, 'f')).toEqual({ a: [1, null, '1970-01-01T00:00:00.000Z'] });
    expect(() => toJsonValue(NaN, 'field "n"')).toThrow('field "n": NaN is not a JSON number');
  });
});
