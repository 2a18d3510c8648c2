import { HttpRequest, type HttpResponseInit } from '@azure/functions';
import { receivePush } from '../../../functions/ReceivePush';
import { setRuntimeFactory } from '../../../functions/runtime-instance';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

// Registration happens on import; a virtual host module keeps @azure/functions out of test mode.
jest.mock('@azure/functions-core', () => ({ setProgrammingModel() {}, registerFunction: () => ({ dispose() {} }), registerHook: () => ({ dispose() {} }), log() {} }), {
  virtual: true,
});

/**
 * ReceivePush as the Functions host calls it (an `HttpRequest` the host already checked the
 * function key of) on a real runtime: no shared secret is asked for, the client state still is.
 */
describe('ReceivePush (Functions app)', () => {
  let f: SyncFixture;
  beforeAll(async () => {
    f = await createSyncFixture({ env: { HOOK_STATE: 'state-1' } }, (config) => {
      const job = config.jobs.find((j) => j.name === 'crm-accounts') as Record<string, unknown>;
      job.push = { secret: 'HOOK_SECRET_UNSET_ON_AZURE', clientState: 'HOOK_STATE' };
    });
    setRuntimeFactory(async () => f.runtime);
  });
  afterAll(async () => {
    await f.close();
  });

  const request = (method: 'GET' | 'POST', body?: string, headers: Record<string, string> = {}) =>
    new HttpRequest({ method, url: 'https://app.azurewebsites.net/api/hooks/crm-accounts?code=KEY', params: { job: 'crm-accounts' }, headers, ...(body === undefined ? {} : { body: { string: body } }) });
  const json = (response: HttpResponseInit) => response.jsonBody as Record<string, unknown>;

  it('accepts a notification on the function key alone (202) and sends its message', async () => {
    const body = JSON.stringify({ sentAt: new Date().toISOString(), clientState: 'state-1', changes: [{ record: { id: 'A-9', name: 'Nine', city: 'x', modified_at: '2026-01-01T00:00:00Z' } }] });
    const response = await receivePush(request('POST', body));
    expect(response.status).toBe(202);
    expect(json(response)).toMatchObject({ accepted: true, sent: 1, queue: 'sbqhigh' });
    expect((await f.runtime.bus.counts('sbqhigh')).active).toBe(1);
  });

  it("still checks the system's own client state", async () => {
    const body = JSON.stringify({ sentAt: new Date().toISOString(), clientState: 'other', changes: [] });
    const response = await receivePush(request('POST', body));
    expect(response.status).toBe(401);
    expect(json(response)).toEqual({ error: { code: 'Unauthorized', message: "$.clientState: does not match the job's push.clientState" } });
  });

  it('refuses a body announced over 1 MB before reading it, and answers the contract on GET', async () => {
    const big = await receivePush(request('POST', '{}', { 'content-length': String(5 * 1024 * 1024) }));
    expect(big.status).toBe(413);
    const contract = await receivePush(request('GET'));
    expect(contract.status).toBe(200);
    expect(json(contract)).toMatchObject({ job: 'crm-accounts', route: '/api/hooks/crm-accounts' });
  });
});
