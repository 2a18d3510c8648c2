import { EXECUTE_JOB_ROUTE, executeJobHandler } from '../http/execute-job-handler';
import type { HttpRoute } from '../http/http-types';
import { PUSH_ROUTE, pushContractHandler, pushHandler } from '../http/push-handler';
import type { TargetHealthView } from '../process/target-health';
import type { Runtime } from '../runtime/runtime';
import type { Logger } from '../telemetry/logger';
import type { durableRoutes } from './durable-routes';
import type { HostStats } from './host-stats';
import { LocalHttpServer } from './http-server';
import { resource, type Resource } from './lifecycle';
import { listenError } from './start-checks';
import type { StatusSources } from './status/build-status';
import { statusRoutes } from './status/status-routes';

/** The routes of the local host: the Functions app's, then the caller's, then the status page's. */
export interface HostRoutesOptions {
  runtime: Runtime;
  stats: HostStats;
  /** Absent: the configuration tables (tables mode). */
  configDir?: string;
  durable: ReturnType<typeof durableRoutes>;
  /** More routes; earlier routes win, so these can replace the status page's. Default none. */
  extraRoutes?: (ctx: { runtime: Runtime; stats: HostStats }) => HttpRoute[];
  /** The outage mode the status page shows: the processing thread's. Default the runtime's. */
  targetHealth?: TargetHealthView;
  /** The incidents the status page shows. Default none. */
  incidents?: StatusSources['incidents'];
}

export function hostRoutes({ runtime, stats, configDir, durable, extraRoutes, targetHealth, incidents }: HostRoutesOptions): HttpRoute[] {
  return [
    ...durable.routes,
    { method: 'POST', route: EXECUTE_JOB_ROUTE, handler: (input) => executeJobHandler(runtime, input) },
    // The local host has no function keys: a push must carry the job's shared secret.
    { method: 'POST', route: PUSH_ROUTE, handler: (input) => pushHandler(runtime, input, { hostAuthenticated: false }) },
    { method: 'GET', route: PUSH_ROUTE, handler: (input) => pushContractHandler(runtime, input, { hostAuthenticated: false }) },
    { method: 'GET', route: 'health', handler: async () => ({ status: 200, body: { status: 'ok', startedAt: stats.startedAt.toISOString() } }) },
    // Earlier routes win: callers' routes can replace the status page's.
    ...(extraRoutes?.({ runtime, stats }) ?? []),
    ...statusRoutes({ runtime: { ...runtime, targetHealth: targetHealth ?? runtime.targetHealth, ...(incidents ? { incidents } : {}) }, stats }, { configDir }),
  ];
}

export interface HttpServerOptions {
  /** On 127.0.0.1; 0 picks a free port. */
  port: number;
  /** Called at the start, once the components the routes use have started. */
  routes: () => HttpRoute[];
  log: Logger;
}

/** The HTTP server; its value is the base URL it listens on (`http://127.0.0.1:PORT`). @throws ConfigError for a taken port. */
export function httpServerComponent({ port, routes, log }: HttpServerOptions): Resource<{ url: string; server: LocalHttpServer }> {
  return resource(
    'the HTTP server',
    async () => {
      const server = new LocalHttpServer(routes(), log);
      const url = await server.listen(port).catch((err: NodeJS.ErrnoException) => {
        throw listenError(err, port);
      });
      return { url, server };
    },
    ({ server }) => server.close(),
  );
}
