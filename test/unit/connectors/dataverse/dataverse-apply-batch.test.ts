import { queryString } from '../../../../connectors/odata/odata-literals';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage, type JsonValue } from '../../../../src/model/queue-message';
import { shown } from '../../../integration/connectors/odata/batch-test-kit';
import { batchExchange, dataverseError, noContent } from './batch-exchanges';
import { API, openDataverse } from './dataverse-test-kit';

const accounts: Mapping = {
  name: 'accounts', source: { entity: 'customers', key: ['no'] }, target: { entity: 'accounts', key: ['accountnumber'] },
  fields: [{ target: 'accountnumber', source: 'no' }, { target: 'name', source: 'name' }],
};
const job: Job = {
  name: 'j', order: 1, schedule: '0 * * * * *', enabled: true, source: 's', target: 'crm', mapping: 'accounts', priority: 'normal',
  watermark: { type: 'datetime', field: 'modified' }, filter: [], action: JobActionType.NewUpdate, skipOutdatedMessages: false, skipUnchanged: false, pageSize: 100, lookbackSeconds: 0,
};
const msg = (no: string, fields: Record<string, JsonValue> = {}, changeTracker = '2026-02-01T00:00:00Z', action: typeof job.action = JobActionType.NewUpdate) =>
  createQueueMessage({ jobName: 'j', action, sourceKey: no, targetKey: { accountnumber: no }, changeTracker, fields: { accountnumber: no, ...fields } });
const at = (no: string) => `${API}accounts(accountnumber='${no}')`;
const bulk = { upsertMultiple: { accounts: { logicalName: 'account' } } };
const upsertMultiple = (nos: string[], status: number, body?: unknown, headers?: Record<string, string>) => ({
  request: {
    method: 'POST', url: `${API}accounts/Microsoft.Dynamics.CRM.UpsertMultiple`,
    body: { Targets: nos.map((no) => ({ '@odata.type': 'Microsoft.Dynamics.CRM.account', '@odata.id': `accounts(accountnumber='${no}')`, name: `N ${no}` })) },
  },
  response: { status, body, headers },
});
const patch = (no: string, headers?: Record<string, string>) => ({ method: 'PATCH' as const, url: at(no), headers, body: { name: `N ${no}` } });

describe('DataverseTarget.applyBatch (recorded Web API exchanges)', () => {
  it('writes a group of a configured table with one UpsertMultiple request', async () => {
    const dv = openDataverse([upsertMultiple(['A-1', 'A-2', 'A-3'], 204)], bulk);
    const outcomes = await dv.target().applyBatch({ job, mapping: accounts, action: JobActionType.NewUpdate, messages: ['A-1', 'A-2', 'A-3'].map((no) => msg(no, { name: `N ${no}` })) });
    expect(outcomes).toEqual([{ status: 'applied' }, { status: 'applied' }, { status: 'applied' }]);
    expect(dv.replay.sent).toHaveLength(1);
    dv.replay.assertDone();
  });

  it('finds the bad record of a refused UpsertMultiple through $batch: only it fails', async () => {
    const bad = dataverseError('0x80040203', "Invalid length for column 'name'");
    const dv = openDataverse([
      upsertMultiple(['A-1', 'A-2', 'A-3'], 400, bad),
      batchExchange('each record alone', [patch('A-1'), patch('A-2'), patch('A-3')], [noContent(), { status: 400, statusText: 'Bad Request', body: bad }, noContent()]),
    ], bulk);
    const outcomes = await dv.target().applyBatch({ job, mapping: accounts, action: JobActionType.NewUpdate, messages: ['A-1', 'A-2', 'A-3'].map((no) => msg(no, { name: `N ${no}` })) });
    expect(shown(outcomes)).toEqual([{ status: 'applied' }, { status: 'failed', error: 'PermanentError 400' }, { status: 'applied' }]);
    expect((outcomes[1] as { error: Error }).error.message).toContain("Invalid length for column 'name' [0x80040203]");
    dv.replay.assertDone();
  });

  it('learns that a table has no UpsertMultiple and writes it with $batch from then on', async () => {
    const dv = openDataverse([
      upsertMultiple(['A-1'], 404, dataverseError('0x80060888', "Resource not found for the segment 'Microsoft.Dynamics.CRM.UpsertMultiple'.")),
      batchExchange('fallback', [patch('A-1')], [noContent()]),
      batchExchange('no UpsertMultiple tried any more', [patch('A-2')], [noContent()]),
    ], bulk);
    const target = dv.target();
    expect(await target.applyBatch({ job, mapping: accounts, action: JobActionType.NewUpdate, messages: [msg('A-1', { name: 'N A-1' })] })).toEqual([{ status: 'applied' }]);
    expect(await target.applyBatch({ job, mapping: accounts, action: JobActionType.NewUpdate, messages: [msg('A-2', { name: 'N A-2' })] })).toEqual([{ status: 'applied' }]);
    expect(dv.warnings).toEqual(['dataverse connection "crm": accounts does not support UpsertMultiple; writing it with $batch from now on']);
    dv.replay.assertDone();
  });

  it('rejects the whole group when throttled, keeping Retry-After', async () => {
    const dv = openDataverse([upsertMultiple(['A-1'], 429, dataverseError('0x80072322', 'Number of requests exceeded the limit of 6000 over time window of 300 seconds.'), { 'Retry-After': '93' })], bulk);
    await expect(dv.target().applyBatch({ job, mapping: accounts, action: JobActionType.NewUpdate, messages: [msg('A-1', { name: 'N A-1' })] }))
      .rejects.toMatchObject({ name: 'TransientError', retryAfterMs: 93_000 });
  });

  it('checks versions inside the write: If-Match on what it read, If-None-Match: * for a create, a 412 read again', async () => {
    const read = (no: string) => ({ method: 'GET' as const, url: `${at(no)}${queryString([['$select', 'modifiedon']])}` });
    const row = (etag: string, modifiedon: string) => ({ status: 200, statusText: 'OK', body: { '@odata.etag': `W/"${etag}"`, modifiedon, accountid: '5a0f9a3e-3ef0-f011-8544-000d3a4a1b2c' } });
    const notFound = { status: 404, statusText: 'Not Found', body: dataverseError('0x80040217', 'account With Id = accountnumber:A-3 Does Not Exist') };
    const dv = openDataverse([
      batchExchange('read', [read('A-1'), read('A-2'), read('A-3')], [row('900', '2026-03-01T00:00:00Z'), row('800', '2026-01-01T00:00:00Z'), notFound]),
      batchExchange('write', [patch('A-2', { 'If-Match': 'W/"800"' }), patch('A-3', { 'If-None-Match': '*' })], [
        { status: 412, statusText: 'Precondition Failed', body: dataverseError('0x80060882', 'The version of the existing record doesn\'t match the RowVersion property provided.') },
        noContent('accounts(6b0f9a3e-3ef0-f011-8544-000d3a4a1b2c)'),
      ]),
      batchExchange('read again', [read('A-2')], [row('950', '2026-03-02T00:00:00Z')]),
    ]);
    const outcomes = await dv.target().applyBatch({
      job, mapping: accounts, action: JobActionType.NewUpdate, versionCheck: { type: 'datetime' },
      messages: ['A-1', 'A-2', 'A-3'].map((no) => msg(no, { name: `N ${no}` })),
    });
    expect(outcomes).toEqual([
      { status: 'outdated', targetVersion: '2026-03-01T00:00:00Z' },
      { status: 'outdated', targetVersion: '2026-03-02T00:00:00Z' },
      { status: 'applied' },
    ]);
    dv.replay.assertDone();
  });

  it('creates a record deleted between its read and its If-Match write (Dataverse answers 404 "Does Not Exist"), instead of parking it', async () => {
    const read = (no: string) => ({ method: 'GET' as const, url: `${at(no)}${queryString([['$select', 'modifiedon']])}` });
    const gone = { status: 404, statusText: 'Not Found', body: dataverseError('', 'account With Id = 5a0f9a3e-3ef0-f011-8544-000d3a4a1b2c Does Not Exist') };
    const dv = openDataverse([
      batchExchange('read', [read('A-1')], [{ status: 200, statusText: 'OK', body: { '@odata.etag': 'W/"800"', modifiedon: '2026-01-01T00:00:00Z', accountid: '5a0f9a3e-3ef0-f011-8544-000d3a4a1b2c' } }]),
      batchExchange('write: deleted meanwhile', [patch('A-1', { 'If-Match': 'W/"800"' })], [gone]),
      batchExchange('read again: not there', [read('A-1')], [{ status: 404, statusText: 'Not Found', body: dataverseError('0x80040217', 'account With Id = accountnumber:A-1 Does Not Exist') }]),
      batchExchange('create', [patch('A-1', { 'If-None-Match': '*' })], [noContent('accounts(7c0f9a3e-3ef0-f011-8544-000d3a4a1b2c)')]),
    ]);
    const outcomes = await dv.target().applyBatch({ job, mapping: accounts, action: JobActionType.NewUpdate, versionCheck: { type: 'datetime' }, messages: [msg('A-1', { name: 'N A-1' })] });
    expect(outcomes).toEqual([{ status: 'applied' }]);
    dv.replay.assertDone();
  });

  it('returns response fields per item from the $batch answers (Prefer: return=representation)', async () => {
    const prefer = { Prefer: 'return=representation' };
    const dv = openDataverse([
      batchExchange('write', [patch('A-1', prefer), patch('A-2', prefer)], [
        { status: 201, statusText: 'Created', body: { accountid: '11111111-0000-0000-0000-000000000001', name: 'N A-1' } },
        { status: 200, statusText: 'OK', body: { accountid: '11111111-0000-0000-0000-000000000002', name: 'N A-2' } },
      ]),
    ]);
    const outcomes = await dv.target().applyBatch({
      job, mapping: accounts, action: JobActionType.NewUpdate, responseMapping: [{ from: 'accountid', to: 'crmId' }],
      messages: [msg('A-1', { name: 'N A-1' }), msg('A-2', { name: 'N A-2' })],
    });
    expect(outcomes).toEqual([
      { status: 'applied', returned: { accountid: '11111111-0000-0000-0000-000000000001' } },
      { status: 'applied', returned: { accountid: '11111111-0000-0000-0000-000000000002' } },
    ]);
    expect(dv.replay.sent).toHaveLength(1);
    dv.replay.assertDone();
  });

  it('deletes through $batch; a missing record is a success', async () => {
    const dv = openDataverse([
      batchExchange('deletes', [{ method: 'DELETE', url: at('A-1') }, { method: 'DELETE', url: at('A-9') }], [
        noContent(), { status: 404, statusText: 'Not Found', body: dataverseError('0x80040217', 'account With Id = accountnumber:A-9 Does Not Exist') },
      ]),
    ], bulk);
    const outcomes = await dv.target().applyBatch({ job, mapping: accounts, action: JobActionType.Delete, messages: [msg('A-1', {}, undefined, JobActionType.Delete), msg('A-9', {}, undefined, JobActionType.Delete)] });
    expect(outcomes).toEqual([{ status: 'applied' }, { status: 'applied' }]);
    dv.replay.assertDone();
  });
});
