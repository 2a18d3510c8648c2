import { failedRecords } from '../../../../connectors/dataverse/upsert-multiple';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage } from '../../../../src/model/queue-message';
import { shown } from '../../../integration/connectors/odata/batch-test-kit';
import { batchExchange, dataverseError, noContent } from './batch-exchanges';
import { API, openDataverse } from './dataverse-test-kit';

/*
 * Elastic tables: a bulk request may partially succeed (Microsoft, "Use bulk operation messages",
 * on-error behaviour with elastic tables). The Web API sends the per-record statuses only when
 * asked with `Prefer: odata.include-annotations=…ErrorDetails.*`, as an annotation of the error;
 * its name is `@Microsoft.PowerApps.CDS.ErrorDetails.` + the SDK's ErrorDetails key
 * `Plugin.BulkApiErrorDetails` (the Dataverse ServiceClient maps every
 * `@Microsoft.PowerApps.CDS.ErrorDetails.<key>` annotation to ErrorDetails[<key>]), its value a JSON
 * text of `BulkApiErrorDetail { RequestIndex, Id, StatusCode }` as the SDK sample deserialises.
 */
const PREFER = 'odata.include-annotations="Microsoft.PowerApps.CDS.ErrorDetails.*"';

const events: Mapping = {
  name: 'events', source: { entity: 'readings', key: ['no'] }, target: { entity: 'contoso_sensordatas', key: ['contoso_deviceid'] },
  fields: [{ target: 'contoso_deviceid', source: 'no' }, { target: 'contoso_value', source: 'value' }],
};
const job: Job = {
  name: 'j', order: 1, schedule: '0 * * * * *', enabled: true, source: 's', target: 'crm', mapping: 'events', priority: 'normal',
  watermark: { type: 'datetime', field: 'modified' }, filter: [], action: JobActionType.NewUpdate, skipOutdatedMessages: false, skipUnchanged: false, pageSize: 100, lookbackSeconds: 0,
};
const NOS = ['D-1', 'D-2', 'D-3', 'D-4'];
const msg = (no: string) =>
  createQueueMessage({ jobName: 'j', action: JobActionType.NewUpdate, sourceKey: no, targetKey: { contoso_deviceid: no }, changeTracker: '2026-02-01T00:00:00Z', fields: { contoso_deviceid: no, contoso_value: `V ${no}` } });
const bulkSettings = (elastic: boolean) => ({ upsertMultiple: { contoso_sensordatas: { logicalName: 'contoso_sensordata', elastic } } });
const upsertMultiple = (status: number, body: unknown, elastic = true) => ({
  request: {
    method: 'POST', url: `${API}contoso_sensordatas/Microsoft.Dynamics.CRM.UpsertMultiple`,
    ...(elastic ? { headers: { prefer: PREFER } } : {}),
    body: { Targets: NOS.map((no) => ({ '@odata.type': 'Microsoft.Dynamics.CRM.contoso_sensordata', '@odata.id': `contoso_sensordatas(contoso_deviceid='${no}')`, contoso_value: `V ${no}` })) },
  },
  response: { status, body },
});
const patch = (no: string) => ({ method: 'PATCH' as const, url: `${API}contoso_sensordatas(contoso_deviceid='${no}')`, body: { contoso_value: `V ${no}` } });
const bad = dataverseError('0x80044331', "A validation error occurred. The value of 'contoso_value' is out of range.");
/** The error of a partly applied request: records at `indexes` failed. */
const partly = (indexes: number[]) => ({
  error: {
    ...bad.error,
    '@Microsoft.PowerApps.CDS.ErrorDetails.Plugin.BulkApiErrorDetails': JSON.stringify(indexes.map((i) => ({ RequestIndex: i, Id: `0000000${i}-0000-0000-0000-000000000000`, StatusCode: 400 }))),
  },
});
const apply = (dv: ReturnType<typeof openDataverse>) => dv.target().applyBatch({ job, mapping: events, action: JobActionType.NewUpdate, messages: NOS.map(msg) });

describe('UpsertMultiple on an elastic table (recorded Web API exchanges)', () => {
  it('sends again only the records the error names; the others were applied', async () => {
    const dv = openDataverse([
      upsertMultiple(400, partly([1, 3])),
      batchExchange('the two named records alone', [patch('D-2'), patch('D-4')], [{ status: 400, statusText: 'Bad Request', body: bad }, noContent()]),
    ], bulkSettings(true));
    const outcomes = await apply(dv);
    expect(shown(outcomes)).toEqual([{ status: 'applied' }, { status: 'failed', error: 'PermanentError 400' }, { status: 'applied' }, { status: 'applied' }]);
    expect((outcomes[1] as { error: Error }).error.message).toContain("out of range. [0x80044331]");
    dv.replay.assertDone();
  });

  it('sends the whole chunk through $batch when the error names no records', async () => {
    const dv = openDataverse([
      upsertMultiple(400, bad),
      batchExchange('every record alone', NOS.map(patch), [noContent(), { status: 400, statusText: 'Bad Request', body: bad }, noContent(), noContent()]),
    ], bulkSettings(true));
    expect(shown(await apply(dv))).toEqual([{ status: 'applied' }, { status: 'failed', error: 'PermanentError 400' }, { status: 'applied' }, { status: 'applied' }]);
    dv.replay.assertDone();
  });

  it('on a standard table trusts no such list: a refused request applied nothing', async () => {
    const dv = openDataverse([
      upsertMultiple(400, partly([1]), false),
      batchExchange('every record alone', NOS.map(patch), [noContent(), { status: 400, statusText: 'Bad Request', body: bad }, noContent(), noContent()]),
    ], bulkSettings(false));
    expect(shown(await apply(dv))).toEqual([{ status: 'applied' }, { status: 'failed', error: 'PermanentError 400' }, { status: 'applied' }, { status: 'applied' }]);
    expect(dv.replay.sent[0].headers.prefer).toBeUndefined();
    dv.replay.assertDone();
  });

  it('rejects the whole group when throttled, also on an elastic table', async () => {
    const dv = openDataverse([upsertMultiple(429, partly([0]))], bulkSettings(true));
    await expect(apply(dv)).rejects.toMatchObject({ name: 'TransientError' });
  });
});

describe('failedRecords', () => {
  const text = (details: unknown) => JSON.stringify({ error: { code: '0x1', message: 'm', '@Microsoft.PowerApps.CDS.ErrorDetails.Plugin.BulkApiErrorDetails': details } });

  it('reads the positions from the JSON text (or an array) of the annotation', () => {
    expect(failedRecords(text(JSON.stringify([{ RequestIndex: 2 }, { RequestIndex: 0 }])), 3)).toEqual(new Set([2, 0]));
    expect(failedRecords(text([{ RequestIndex: 1, StatusCode: 400 }]), 3)).toEqual(new Set([1]));
  });

  it('knows nothing from a missing, empty, unreadable or out-of-range list', () => {
    expect(failedRecords(JSON.stringify(bad), 3)).toBeUndefined();
    expect(failedRecords(text('[]'), 3)).toBeUndefined();
    expect(failedRecords(text('[{'), 3)).toBeUndefined();
    expect(failedRecords(text([{ RequestIndex: 3 }]), 3)).toBeUndefined();
    expect(failedRecords(text([{ RequestIndex: '1' }]), 3)).toBeUndefined();
    expect(failedRecords('<html>', 3)).toBeUndefined();
  });
});
