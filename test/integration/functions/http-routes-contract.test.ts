import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HttpRequest, HttpResponse, type HttpResponseInit } from '@azure/functions';
import { executeJob } from '../../../functions/ExecuteJob';
import { getRunStatus } from '../../../functions/GetRunStatus';
import { receivePush } from '../../../functions/ReceivePush';
import { setRuntimeFactory } from '../../../functions/runtime-instance';
import { durableRoutes } from '../../../src/host/durable-routes';
import { HostStats } from '../../../src/host/host-stats';
import { hostRoutes } from '../../../src/host/http-component';
import { LocalHttpServer } from '../../../src/host/http-server';
import { EXECUTE_JOB_ROUTE } from '../../../src/http/execute-job-handler';
import { PUSH_ROUTE } from '../../../src/http/push-handler';
import { RUN_STATUS_ROUTE } from '../../../src/http/run-status-handler';
import type { Runtime } from '../../../src/runtime/runtime';
import { silentLogger } from '../../../src/telemetry/logger';
import { runHttpRoutesContract, type HttpAnswer, type HttpRoutesRuntime } from '../../contract/http-routes.contract';

// Importing functions/ registers them; a virtual host module keeps @azure/functions out of test mode.
jest.mock('@azure/functions-core', () => ({ setProgrammingModel() {}, registerFunction: () => ({ dispose() {} }), registerHook: () => ({ dispose() {} }), log() {} }), {
  virtual: true,
});

/** The local host's routes and server, over a runtime that forwards to the case's scripted one. */
runHttpRoutesContract('LocalHttpServer (local host)', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'highwater-http-contract-'));
  // Read per request; undefined while the routes are built (the status page copies the runtime then).
  let current: HttpRoutesRuntime | undefined;
  const forwarding = {
    settings: { dataDir },
    clock: { now: () => new Date() },
    log: silentLogger,
    get init() {
      return current?.init;
    },
    get detection() {
      return current?.detection;
    },
    get acceptedRuns() {
      return current?.acceptedRuns;
    },
    get push() {
      return current?.push;
    },
  } as unknown as Runtime;
  let origin = '';
  const durable = durableRoutes(forwarding, () => origin);
  const server = new LocalHttpServer(hostRoutes({ runtime: forwarding, stats: new HostStats(new Date()), configDir: dataDir, durable }), silentLogger);
  origin = await server.listen(0);
  return {
    origin,
    authenticatesCallers: false,
    request: async (runtime, request) => {
      current = runtime;
      const response = await fetch(`${origin}/api/${request.path}`, { method: request.method, body: request.body, headers: request.headers });
      return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() };
    },
    close: async () => {
      await durable.driver.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

/** The Functions triggers, each on the route it registers; routing and parameter decoding as the host does. */
const TRIGGERS: Array<{ route: string; methods: string[]; handler: (request: HttpRequest) => Promise<HttpResponseInit> }> = [
  { route: EXECUTE_JOB_ROUTE, methods: ['POST'], handler: executeJob },
  { route: RUN_STATUS_ROUTE, methods: ['GET'], handler: getRunStatus },
  { route: PUSH_ROUTE, methods: ['GET', 'POST'], handler: receivePush },
];

function routeParams(route: string, pathname: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = route.replace(/\{(\w+)\}/g, (_, name: string) => (names.push(name), '([^/]+)'));
  const match = new RegExp(`^/api/${pattern}$`).exec(pathname);
  return match ? Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1])])) : undefined;
}

/** The Functions app's HTTP triggers on @azure/functions' own request and response types. */
runHttpRoutesContract('Functions HTTP triggers (@azure/functions)', async () => ({
  origin: 'http://localhost:7071',
  authenticatesCallers: true,
  request: async (runtime, request): Promise<HttpAnswer> => {
    setRuntimeFactory(async () => runtime as unknown as Runtime);
    const url = new URL(`/api/${request.path}`, 'http://localhost:7071');
    for (const trigger of TRIGGERS) {
      const params = routeParams(trigger.route, url.pathname);
      if (!params || !trigger.methods.includes(request.method)) continue;
      const headers = { ...request.headers, ...(request.body !== undefined ? { 'content-length': String(Buffer.byteLength(request.body)) } : {}) };
      const init = await trigger.handler(new HttpRequest({ method: request.method, url: url.toString(), params, headers, body: request.body === undefined ? undefined : { string: request.body } }));
      const response = new HttpResponse(init);
      return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() };
    }
    throw new Error(`no trigger for ${request.method} ${url.pathname}`);
  },
  close: async () => undefined,
}));
