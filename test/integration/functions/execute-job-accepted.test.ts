import { HttpRequest, type HttpResponseInit } from '@azure/functions';
import { executeJob } from '../../../functions/ExecuteJob';
import { getRunStatus } from '../../../functions/GetRunStatus';
import { setRuntimeFactory } from '../../../functions/runtime-instance';
import { durableRoutes } from '../../../src/host/durable-routes';
import { FaultInjection, faultInjectingRegistry, until } from '../../support/fault-injection';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

jest.mock('@azure/functions-core', () => ({ setProgrammingModel() {}, registerFunction: () => ({ dispose() {} }), registerHook: () => ({ dispose() {} }), log() {} }), {
  virtual: true,
});

type Json = HttpResponseInit & { jsonBody: Record<string, unknown> };
const BASE = 'https://func-highwater.azurewebsites.net/api';
const post = (name: string, body?: string) =>
  new HttpRequest({ method: 'POST', url: `${BASE}/jobs/${name}/execute?code=SECRETKEY`, params: { name }, body: body === undefined ? undefined : { string: body } });
const get = async (id: string) => (await getRunStatus(new HttpRequest({ method: 'GET', url: `${BASE}/runs/${id}`, params: { id } }))) as Json;

/**
 * ExecuteJob past its wait budget (here 0 s, so every non-dry run outlasts it): 202 with the
 * run's id and status URL, the run goes on, and `GET runs/{id}` reports it from the table.
 */
describe('ExecuteJob runs that outlast the wait (real runtime: Azurite, local bus, SQLite)', () => {
  let f: SyncFixture;
  const faults = new FaultInjection();
  let release: () => void = () => {};
  beforeAll(async () => {
    f = await createSyncFixture({ registry: faultInjectingRegistry(faults), executeWaitMs: 0 });
    setRuntimeFactory(async () => f.runtime);
  });
  afterAll(() => f.close());

  it('answers 202 with the run id and status URL, reports Running, then the result once the run ends', async () => {
    f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)').run('L-1', 'Acme', 'Berlin', '2026-01-01T10:00:00.000Z');
    const gate = new Promise<void>((resolve) => (release = resolve));
    faults.plan = { beforeSourcePage: () => gate };

    const accepted = (await executeJob(post('crm-accounts'))) as Json;
    expect(accepted.status).toBe(202);
    const id = String(accepted.jsonBody.id);
    expect(id).toMatch(/^\d{13}-[0-9a-f]{8}$/);
    // The status URL is on the same host, without the caller's function key.
    const statusUrl = `${BASE}/runs/${id}`;
    expect(accepted.jsonBody).toEqual({ id, job: 'crm-accounts', state: 'Running', acceptedAt: expect.any(String), statusUrl });
    expect(accepted.headers).toEqual({ location: statusUrl, 'retry-after': '30' });

    const running = await get(id);
    expect(running.status).toBe(200);
    expect(running.jsonBody).toMatchObject({ id, job: 'crm-accounts', state: 'Running' });
    expect(running.jsonBody.result).toBeUndefined();

    release();
    const done = await until('the run to end', async () => {
      const r = await get(id);
      return r.jsonBody.state === 'Running' ? undefined : r;
    });
    expect(done.jsonBody).toMatchObject({
      id,
      state: 'Succeeded',
      endedAt: expect.any(String),
      result: { job: 'crm-accounts', outcome: 'Succeeded', detected: 1, sent: 1, sentByQueue: { sbqhigh: 1 }, watermarkAfter: '2026-01-01T10:00:00.0000000Z' },
    });
    expect((await f.runtime.bus.counts('sbqhigh')).active).toBe(1);
    // The run's own record is in the runs table as for any run.
    expect((await f.runtime.runLog.latest('crm-accounts', 1))[0]).toMatchObject({ trigger: 'manual', detected: 1, outcome: 'Succeeded' });
  });

  it('reports a run that ran and failed with its error', async () => {
    faults.plan = {
      beforeSourcePage: () => {
        throw new Error('source went away');
      },
    };
    f.crm.prepare('INSERT INTO contacts VALUES (?, ?, ?, ?, ?)').run('C-1', 'L-1', 'Ada', 'Lovelace', '2026-01-02T10:00:00.000Z');
    const accepted = (await executeJob(post('crm-contacts'))) as Json;
    expect(accepted.status).toBe(202);
    const done = await until('the run to end', async () => {
      const r = await get(String(accepted.jsonBody.id));
      return r.jsonBody.state === 'Running' ? undefined : r;
    });
    expect(done.jsonBody).toMatchObject({ state: 'Failed', result: { outcome: 'Failed', error: 'source went away', watermarkAfter: null } });
    faults.plan = {};
  });

  it('always waits for a dry run: 200 with the preview, even with a wait of 0 s', async () => {
    const response = (await executeJob(post('crm-accounts', '{"dryRun":true,"limit":5}'))) as Json;
    expect(response.status).toBe(200);
    expect(response.jsonBody).toMatchObject({ job: 'crm-accounts', outcome: 'Succeeded', preview: [] });
  });

  it('answers 404 for an unknown or malformed run id, naming it', async () => {
    expect(await get('9998215412345-0a1b2c3d')).toEqual({
      status: 404,
      jsonBody: { error: { code: 'RunNotFound', message: 'unknown run "9998215412345-0a1b2c3d" (kept: the newest 500 accepted runs)' } },
    });
    expect(await get('../watermark')).toEqual({
      status: 404,
      jsonBody: { error: { code: 'RunNotFound', message: 'unknown run "../watermark" (run ids look like 9998215412345-0a1b2c3d)' } },
    });
  });

  it('the local host serves the same status route', async () => {
    const accepted = (await executeJob(post('crm-deleted-accounts'))) as Json;
    const { routes, driver } = durableRoutes(f.runtime, () => 'http://127.0.0.1:7071');
    try {
      const route = routes.find((r) => r.method === 'GET' && r.route === 'runs/{id}');
      const id = String(accepted.jsonBody.id);
      const local = await until('the run to end', async () => {
        const r = await route!.handler({ method: 'GET', params: { id }, query: new URLSearchParams(), body: '', headers: {} });
        return (r.body as { state: string }).state === 'Running' ? undefined : r;
      });
      expect(local).toMatchObject({ status: 200, body: { id, job: 'crm-deleted-accounts', state: 'Succeeded' } });
    } finally {
      await driver.close();
    }
  });
});
