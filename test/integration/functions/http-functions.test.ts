import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpRequest, InvocationContext, type HttpResponse, type HttpResponseInit } from '@azure/functions';
import * as df from 'durable-functions';
import { executeJob } from '../../../functions/ExecuteJob';
import { setRuntimeFactory } from '../../../functions/runtime-instance';
import { startGetChangesOrchestration } from '../../../functions/StartGetChangesOrchestration';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

// Registration happens on import; a virtual host module keeps @azure/functions out of test mode.
jest.mock('@azure/functions-core', () => ({ setProgrammingModel() {}, registerFunction: () => ({ dispose() {} }), registerHook: () => ({ dispose() {} }), log() {} }), {
  virtual: true,
});

function post(route: string, params: Record<string, string>, body?: string): HttpRequest {
  return new HttpRequest({ method: 'POST', url: `http://localhost:7071/api/${route}`, params, body: body === undefined ? undefined : { string: body } });
}

/**
 * The Durable Functions extension's HTTP API as `startNew` uses it (rpcBaseUrl), answering like
 * the extension: 202 with the new instance's id. Records each start.
 */
async function startFakeDurableExtension() {
  const starts: Array<{ url: string; input: unknown }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      starts.push({ url: req.url ?? '', input: body === '' ? undefined : JSON.parse(body) });
      res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ id: `instance-${starts.length}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const management = (id: string) => `http://127.0.0.1:7071/runtime/webhooks/durabletask/instances/${id}?taskHub=DurableFunctionsHub&connection=Storage&code=KEY`;
  const clientData = {
    taskHubName: 'DurableFunctionsHub',
    creationUrls: { createNewInstancePostUri: 'unused', createAndWaitOnNewInstancePostUri: 'unused' },
    managementUrls: {
      id: 'INSTANCEID',
      statusQueryGetUri: management('INSTANCEID'),
      sendEventPostUri: `${management('INSTANCEID')}/raiseEvent/{eventName}`,
      terminatePostUri: `${management('INSTANCEID')}/terminate?reason={text}`,
      purgeHistoryDeleteUri: management('INSTANCEID'),
    },
    baseUrl: 'http://127.0.0.1:7071/runtime/webhooks/durabletask',
    requiredQueryStringParameters: 'code=KEY',
    rpcBaseUrl: `http://127.0.0.1:${port}/durabletask/`,
  };
  const logs: string[] = [];
  const context = () => {
    const input = df.input.durableClient();
    const ctx = new InvocationContext({
      functionName: 'StartGetChangesOrchestration',
      options: { extraInputs: [input] },
      logHandler: (_level, ...args) => logs.push(args.join(' ')),
    });
    ctx.extraInputs.set(input, clientData);
    return ctx;
  };
  return { starts, logs, context, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('HTTP functions on a real runtime (Azurite, local bus, SQLite)', () => {
  let f: SyncFixture;
  let durable: Awaited<ReturnType<typeof startFakeDurableExtension>>;
  beforeAll(async () => {
    f = await createSyncFixture();
    durable = await startFakeDurableExtension();
  });
  afterAll(async () => {
    await durable.close();
    await f.close();
  });

  describe('when the runtime cannot be created', () => {
    beforeAll(() => setRuntimeFactory(() => Promise.reject(new Error('storage unreachable: AccountKey=c2VjcmV0; EndpointSuffix=core.windows.net'))));

    it('answers 503 without leaking the secret', async () => {
      const response = await executeJob(post('jobs/crm-accounts/execute', { name: 'crm-accounts' }));
      expect(response).toEqual({
        status: 503,
        jsonBody: { error: { code: 'RuntimeUnavailable', message: 'storage unreachable: AccountKey=***; EndpointSuffix=core.windows.net' } },
      });
    });
  });

  describe('with the runtime', () => {
    beforeAll(() => setRuntimeFactory(async () => f.runtime));

    it('ExecuteJob answers 404 with a JSON error for an unknown job', async () => {
      expect(await executeJob(post('jobs/nope/execute', { name: 'nope' }))).toEqual({
        status: 404,
        jsonBody: { error: { code: 'JobNotFound', message: 'unknown job "nope"' } },
      });
    });

    it('ExecuteJob answers 400 for a bad body', async () => {
      expect(await executeJob(post('jobs/crm-accounts/execute', { name: 'crm-accounts' }, '{"dryRun":"yes"}'))).toEqual({
        status: 400,
        jsonBody: { error: { code: 'BadRequest', message: 'body.dryRun: expected a boolean' } },
      });
    });

    it('ExecuteJob runs the job and answers 200 with its counts', async () => {
      f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)').run('H-1', 'Acme', 'Berlin', '2026-01-01T10:00:00.000Z');
      const response = (await executeJob(post('jobs/crm-accounts/execute', { name: 'crm-accounts' }))) as HttpResponseInit & { jsonBody: Record<string, unknown> };
      expect(response.status).toBe(200);
      expect(response.jsonBody).toMatchObject({ job: 'crm-accounts', outcome: 'Succeeded', detected: 1, sent: 1, sentByQueue: { sbqhigh: 1 } });
      expect((await f.runtime.bus.counts('sbqhigh')).active).toBe(1);
    });

    it('StartGetChangesOrchestration starts the due jobs and answers 202 with the status URLs', async () => {
      const response = (await startGetChangesOrchestration(post('orchestrators/GetChangesOrchestrator', {}), durable.context())) as HttpResponse;
      expect(response.status).toBe(202);
      const body = (await response.json()) as Record<string, string>;
      expect(body.id).toBe('instance-1');
      expect(body.statusQueryGetUri).toBe('http://localhost:7071/runtime/webhooks/durabletask/instances/instance-1?taskHub=DurableFunctionsHub&connection=Storage&code=KEY');
      expect(response.headers.get('location')).toBe(body.statusQueryGetUri);
      // crm-accounts ran by hand above (that run wrote its LastCronRun); the other enabled jobs never ran.
      expect(durable.starts).toEqual([{ url: '/durabletask/orchestrators/GetChangesOrchestrator', input: { jobs: ['crm-contacts', 'crm-deleted-accounts'] } }]);
      expect(durable.logs).toEqual(['started GetChangesOrchestrator instance-1 for 2 job(s)']);
    });

    it('StartGetChangesOrchestration starts the named jobs, and rejects unknown ones without starting', async () => {
      const ok = (await startGetChangesOrchestration(post('orchestrators/GetChangesOrchestrator', {}, '{"jobs":["erp-numbers"]}'), durable.context())) as HttpResponse;
      expect(ok.status).toBe(202);
      expect(durable.starts.at(-1)?.input).toEqual({ jobs: ['erp-numbers'] });

      const before = durable.starts.length;
      const bad = await startGetChangesOrchestration(post('orchestrators/GetChangesOrchestrator', {}, '{"jobs":["nope"]}'), durable.context());
      expect(bad).toEqual({ status: 400, jsonBody: { error: { code: 'BadRequest', message: 'body.jobs[0]: unknown job "nope"' } } });
      expect(durable.starts).toHaveLength(before);
    });
  });
});
