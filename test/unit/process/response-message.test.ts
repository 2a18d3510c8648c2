import { JobActionType, type Job } from '../../../src/model/job';
import type { Mapping } from '../../../src/model/mapping';
import { createQueueMessage } from '../../../src/model/queue-message';
import { buildResponseMessage } from '../../../src/process/response-message';

const baseJob: Job = {
  name: 'erp-number-to-crm',
  order: 20,
  schedule: '0 0 * * * *',
  enabled: true,
  source: 'erp',
  target: 'crm',
  mapping: 'erp-number',
  priority: 'high',
  watermark: { type: 'datetime', field: 'modified_at' },
  filter: [],
  action: JobActionType.NewUpdate,
  skipOutdatedMessages: false,
  skipUnchanged: false,
  pageSize: 100,
  lookbackSeconds: 0,
};

const accountMapping: Mapping = {
  name: 'account-to-customer',
  source: { entity: 'accounts', key: ['id'] },
  target: { entity: 'customers', key: ['crm_id'] },
  fields: [{ target: 'crm_id', source: 'id' }],
  responseMapping: [{ from: 'customer_no', to: 'erp_number' }],
};

const backMapping: Mapping = {
  name: 'erp-number',
  source: { entity: 'customers', key: ['customer_no'] },
  target: { entity: 'accounts', key: ['id'] },
  fields: [{ target: 'erp_number', source: 'customer_no' }],
};

const original = createQueueMessage({
  jobName: 'crm-accounts',
  action: JobActionType.NewUpdate,
  sourceKey: 'A-1',
  targetKey: { crm_id: 'A-1' },
  changeTracker: '2026-01-01T00:00:00.000Z',
  fields: { crm_id: 'A-1', name: 'ACME' },
  correlationId: 'corr-1',
});

describe('buildResponseMessage', () => {
  it('addresses the original source record and carries the returned fields', () => {
    const now = new Date('2026-02-03T04:05:06.000Z');
    const response = buildResponseMessage({
      original,
      originalMapping: accountMapping,
      responseJob: baseJob,
      responseJobMapping: backMapping,
      returned: { customer_no: 'C-1000', other: 'x' },
      now,
    });
    expect(response).toMatchObject({
      jobName: 'erp-number-to-crm',
      action: JobActionType.NewUpdate,
      targetKey: { id: 'A-1' },
      fields: { id: 'A-1', erp_number: 'C-1000' },
      correlationId: 'corr-1',
      changeTracker: '2026-02-03T04:05:06.000Z',
    });
  });

  it('returns nothing when the mapping has no response fields', () => {
    const response = buildResponseMessage({
      original,
      originalMapping: { ...accountMapping, responseMapping: [] },
      responseJob: baseJob,
      responseJobMapping: backMapping,
      returned: { customer_no: 'C-1' },
      now: new Date(),
    });
    expect(response).toBeUndefined();
  });

  it('rejects a response mapping whose key does not fit the source key', () => {
    expect(() =>
      buildResponseMessage({
        original,
        originalMapping: accountMapping,
        responseJob: baseJob,
        responseJobMapping: { ...backMapping, target: { entity: 'accounts', key: ['tenant', 'id'] } },
        returned: { customer_no: 'C-1' },
        now: new Date(),
      }),
    ).toThrow('response job "erp-number-to-crm": mapping "erp-number" has 2 target key field(s) but job "crm-accounts" has 1 source key value(s)');
  });
});
