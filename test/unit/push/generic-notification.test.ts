import { readGenericNotification } from '../../../src/push/generic-notification';
import type { Mapping } from '../../../src/model/mapping';
import { job, mapping, rejection } from './push-fixtures';

describe('generic notifications', () => {
  const record = { id: 'A', displayName: 'x', suffix: 'y', lastModifiedDateTime: '2026-12-06T00:00:00Z' };

  it('asks for every column the mapping reads, concat inputs too, and names the first one missing by its path', () => {
    const { suffix: _omitted, ...partial } = record;
    expect(rejection(() => readGenericNotification({ sentAt: '2026-12-06T00:00:00Z', changes: [{ record }, { record: partial }] }, job, mapping, undefined))).toEqual({
      status: 400,
      code: 'BadNotification',
      message: '$.changes[1].record.suffix: missing (mapped by mapping "m")',
    });
  });

  it('takes a delete with its key alone, and "too many changes" without a list', () => {
    const reading = readGenericNotification({ sentAt: '2026-12-06T00:00:00Z', changes: [{ action: 'delete', record: { id: 'B' } }] }, job, mapping, undefined);
    expect(reading.changes).toEqual([{ action: 'delete', row: { id: 'B' }, fallbackChangeTracker: new Date('2026-12-06T00:00:00Z') }]);
    expect(readGenericNotification({ sentAt: '2026-12-06T00:00:00Z', tooManyChanges: true }, job, mapping, undefined)).toMatchObject({ changes: [], pollReason: 'the notification says tooManyChanges' });
  });

  it('refuses over a thousand changes, a date that is not ISO 8601, and a wrong or missing client state', () => {
    const many = Array.from({ length: 1001 }, () => ({ record }));
    expect(rejection(() => readGenericNotification({ sentAt: '2026-12-06T00:00:00Z', changes: many }, job, mapping, undefined)).message).toBe(
      '$.changes: 1001 changes, over 1000: send tooManyChanges: true instead',
    );
    expect(rejection(() => readGenericNotification({ sentAt: 'Sunday', changes: [{ record }] }, job, mapping, undefined)).message).toBe('$.sentAt: expected an ISO 8601 date-time');
    expect(rejection(() => readGenericNotification({ sentAt: '2026-12-06T00:00:00Z', changes: [{ record }] }, job, mapping, 's3cret'))).toEqual({ status: 401, code: 'Unauthorized', message: '$.clientState: missing' });
  });

  it('polls instead when the mapping has resolvers (they read the source)', () => {
    const withResolver: Mapping = { ...mapping, fields: [...mapping.fields, { target: 'x', source: 'id', resolver: { entity: 'e', matchField: 'a', returnField: 'b' } }] };
    const reading = readGenericNotification({ sentAt: '2026-12-06T00:00:00Z', changes: [{ record }] }, job, withResolver, undefined);
    expect(reading).toMatchObject({ changes: [], pollReason: 'mapping "m" has resolvers, which read the source: the job is polled' });
  });
});
