import { buildBatch } from '../../../../connectors/odata/batch-multipart';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage } from '../../../../src/model/queue-message';
import { shown } from '../../../integration/connectors/odata/batch-test-kit';
import { batchExchange, dataverseError, noContent } from './batch-exchanges';
import { API, openDataverse } from './dataverse-test-kit';

const tasks: Mapping = {
  name: 'tasks', source: { entity: 'todo', key: ['no'] }, target: { entity: 'tasks', key: ['new_no'] },
  fields: [{ target: 'new_no', source: 'no' }, { target: 'subject', source: 'subject' }],
};
const job: Job = {
  name: 'j', order: 1, schedule: '0 * * * * *', enabled: true, source: 's', target: 'crm', mapping: 'tasks', priority: 'normal',
  watermark: { type: 'datetime', field: 'modified' }, filter: [], action: JobActionType.NewUpdate, skipOutdatedMessages: false, skipUnchanged: false, pageSize: 100, lookbackSeconds: 0,
};
const TOO_LONG = `Subject is too long ${'x'.repeat(200)}`;
const msg = (no: string, subject: string) =>
  createQueueMessage({ jobName: 'j', action: JobActionType.NewUpdate, sourceKey: no, targetKey: { new_no: no }, changeTracker: '2026-02-01T00:00:00Z', fields: { new_no: no, subject } });
const messages = () => [msg('T-1', TOO_LONG), msg('T-2', 'Task 2 in batch'), msg('T-3', 'Task 3 in batch')];
const patch = (no: string, subject: string) => ({ method: 'PATCH' as const, url: `${API}tasks(new_no='${no}')`, body: { subject } });
const parts = () => [patch('T-1', TOO_LONG), patch('T-2', 'Task 2 in batch'), patch('T-3', 'Task 3 in batch')];
// Dataverse's answer to a subject over the column's length, as its documentation shows it.
const tooLong = dataverseError('0x80044331', "A validation error occurred.  The length of the 'subject' attribute of the 'task' entity exceeded the maximum allowed length of '200'.");

describe('Dataverse $batch that the service stopped at the first failed request', () => {
  it('gives the failed request its error and retries the ones that never ran (HTTP 400 for the batch, one answer part)', async () => {
    const dv = openDataverse([
      batchExchange('continue-on-error not applied: the batch fails on the first request', parts(), [{ status: 400, statusText: 'Bad Request', headers: { REQ_ID: '5ecd1cb3-1730-4ffc-909c-d44c22270026' }, body: tooLong }], { status: 400, statusText: 'BadRequest' }),
    ]);
    const outcomes = await dv.target().applyBatch({ job, mapping: tasks, action: JobActionType.NewUpdate, messages: messages() });
    dv.replay.assertDone();
    expect(shown(outcomes)).toEqual([{ status: 'failed', error: 'PermanentError 400' }, { status: 'failed', error: 'TransientError' }, { status: 'failed', error: 'TransientError' }]);
    expect((outcomes[0] as { error: Error }).error.message).toBe(
      `dataverse connection "crm": upsert tasks(new_no='T-1'): the service rejected the request (PATCH 400): ${tooLong.error.message} [0x80044331]`,
    );
    expect((outcomes[1] as { error: Error }).error.message).toBe(
      `dataverse connection "crm": upsert tasks(new_no='T-2') ($batch): not run: the service stopped at an earlier request that failed`,
    );
  });

  it('reads the answers before the failure the same way: applied, failed, not run', async () => {
    const dv = openDataverse([
      batchExchange('stopped at the second request', parts(), [noContent(), { status: 400, statusText: 'Bad Request', body: tooLong }], { status: 400, statusText: 'BadRequest' }),
    ]);
    const outcomes = await dv.target().applyBatch({ job, mapping: tasks, action: JobActionType.NewUpdate, messages: messages() });
    dv.replay.assertDone();
    expect(shown(outcomes)).toEqual([{ status: 'applied' }, { status: 'failed', error: 'PermanentError 400' }, { status: 'failed', error: 'TransientError' }]);
  });

  it('sends the requests one by one when the batch is refused with a plain error naming no request, so only the bad one fails', async () => {
    const single = (no: string, subject: string, status: number, body?: unknown) => ({
      request: { method: 'PATCH', url: `${API}tasks(new_no='${no}')`, body: { subject } },
      response: { status, body },
    });
    const dv = openDataverse([
      { note: 'the batch as a whole answered with the first request\'s error', request: { method: 'POST', url: `${API}$batch`, body: buildBatch('{{boundary}}', parts()) }, response: { status: 400, body: tooLong } },
      single('T-1', TOO_LONG, 400, tooLong),
      single('T-2', 'Task 2 in batch', 204),
      single('T-3', 'Task 3 in batch', 204),
    ]);
    const outcomes = await dv.target().applyBatch({ job, mapping: tasks, action: JobActionType.NewUpdate, messages: messages() });
    expect(shown(outcomes)).toEqual([{ status: 'failed', error: 'PermanentError 400' }, { status: 'applied' }, { status: 'applied' }]);
    dv.replay.assertDone();
  });

  it('still fails the whole group on a refusal of the batch itself (429 with Retry-After): nothing is sent one by one', async () => {
    const throttled = dataverseError('0x80072322', 'Number of requests exceeded the limit of 6000 over time window of 300 seconds.');
    const dv = openDataverse([{ request: { method: 'POST', url: `${API}$batch`, body: buildBatch('{{boundary}}', parts()) }, response: { status: 429, body: throttled, headers: { 'retry-after': '20' } } }]);
    await expect(dv.target().applyBatch({ job, mapping: tasks, action: JobActionType.NewUpdate, messages: messages() })).rejects.toMatchObject({ name: 'TransientError', retryAfterMs: 20_000 });
    dv.replay.assertDone();
  });
});
