import path from 'node:path';
import type { MessageBus } from '../../bus/message-bus';
import type { Settings } from '../../platform/settings';
import { httpError, type HttpInput, type HttpOutput, type HttpRoute } from '../../http/http-types';
import { buildStatus, type StatusSources, type StatusStats } from './build-status';
import { renderDeadLetterPage, renderMoverReportPage } from './dead-letter-html';
import { buildDeadLetterReport } from './dead-letter-report';
import { moverArguments, moverCommandLine, moverDryRunReport, type MoverReportResult, type MoverSource } from './mover-report';
import { MetricsFileHistory } from './metrics-history';
import { renderStatusPage } from './status-html';

export interface StatusRoutesOptions {
  /** How often the open page refreshes itself, ms. Default 5 000. */
  refreshMs?: number;
  /** Messages peeked per dead-letter source. Default 200. */
  peekLimit?: number;
  /** The configuration folder, passed to the mover as `--config` (parked messages need job priorities). */
  configDir?: string;
  /** Produces the mover's dry-run report. Default: {@link moverDryRunReport} on the host's bus. */
  moverReport?: (source: MoverSource) => Promise<MoverReportResult>;
  /**
   * The local metrics folder, read for the hour before the host started ("Last hour" after a
   * restart). Default `<dataDir>/metrics`, where the local host's metrics go; null: not read.
   */
  metricsDir?: string | null;
}

export interface StatusRoutesContext {
  runtime: StatusSources & { settings: Settings; bus: MessageBus };
  stats: StatusStats;
}

const HTML_HEADERS = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' };
const JSON_HEADERS = { 'cache-control': 'no-store' };

/** `/dead-letters/report?queue=Q&deadLetter=true`: the page of the mover's dry run of one source. */
function moverReportUrl(source: MoverSource): string {
  return `/dead-letters/report?${new URLSearchParams({ queue: source.queue, deadLetter: String(source.deadLetter) })}`;
}

/**
 * The local host's status routes: `GET /` (page), `GET /api/status` (its JSON),
 * `GET /dead-letters` (page), `GET /api/status/dead-letters` (its JSON) and
 * `GET /dead-letters/report` (the mover's dry run). Read-only: the page's "run now" buttons call
 * the existing `POST /api/jobs/{name}/execute`.
 */
export function statusRoutes(ctx: StatusRoutesContext, options: StatusRoutesOptions = {}): HttpRoute[] {
  const { stats } = ctx;
  const metricsDir = options.metricsDir === undefined ? path.join(ctx.runtime.settings.dataDir, 'metrics') : options.metricsDir;
  const metricsHistory = metricsDir === null ? undefined : new MetricsFileHistory({ dir: metricsDir, startedAt: stats.startedAt });
  const runtime = { ...ctx.runtime, ...(metricsHistory ? { metricsHistory } : {}) };
  const command = (source: MoverSource) => moverCommandLine(moverArguments(source, runtime.settings, options.configDir));
  const report = () =>
    buildDeadLetterReport(runtime.bus, runtime.settings.queues, {
      peekLimit: options.peekLimit,
      reportUrl: (queue, subQueue) => moverReportUrl({ queue, deadLetter: subQueue === 'deadLetter' }),
    });
  const moverReport = options.moverReport ?? ((source: MoverSource) => moverDryRunReport(runtime, source, options.configDir));
  return [
    {
      method: 'GET',
      route: '/',
      handler: async (): Promise<HttpOutput> => ({
        status: 200,
        headers: HTML_HEADERS,
        body: renderStatusPage(await buildStatus(runtime, stats), options.refreshMs),
      }),
    },
    { method: 'GET', route: 'status', handler: async () => ({ status: 200, headers: JSON_HEADERS, body: await buildStatus(runtime, stats) }) },
    {
      method: 'GET',
      route: '/dead-letters',
      handler: async () => ({
        status: 200,
        headers: HTML_HEADERS,
        body: renderDeadLetterPage(await report(), (queue, subQueue) => command({ queue, deadLetter: subQueue === 'deadLetter' })),
      }),
    },
    { method: 'GET', route: 'status/dead-letters', handler: async () => ({ status: 200, headers: JSON_HEADERS, body: { sources: await report() } }) },
    {
      method: 'GET',
      route: '/dead-letters/report',
      handler: async (input: HttpInput): Promise<HttpOutput> => {
        const queue = input.query.get('queue') ?? '';
        const deadLetter = input.query.get('deadLetter') ?? 'false';
        if (!queueNames(runtime.settings).includes(queue)) return httpError(400, 'BadRequest', `query.queue: expected one of ${queueNames(runtime.settings).join(', ')}`);
        if (deadLetter !== 'true' && deadLetter !== 'false') return httpError(400, 'BadRequest', 'query.deadLetter: expected true or false');
        const source = { queue, deadLetter: deadLetter === 'true' };
        const result = await moverReport(source);
        return { status: 200, headers: HTML_HEADERS, body: renderMoverReportPage(source, command(source), result) };
      },
    },
  ];
}

function queueNames(settings: Pick<Settings, 'queues'>): string[] {
  const q = settings.queues;
  return [...Object.values(q.work), ...Object.values(q.transitive), q.ignored];
}
