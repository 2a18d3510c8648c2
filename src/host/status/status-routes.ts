import type { HttpOutput, HttpRoute } from '../../http/http-types';
import { buildStatus, type StatusSources, type StatusStats } from './build-status';
import { renderDeadLetterPage, type MoverCommand } from './dead-letter-html';
import { buildDeadLetterReport, type DeadLetterReportOptions } from './dead-letter-report';
import { renderStatusPage } from './status-html';

export interface StatusRoutesOptions {
  /** How often the open page refreshes itself, ms. Default 5 000. */
  refreshMs?: number;
  /** Messages peeked per dead-letter source. Default 200. */
  peekLimit?: number;
  /** Link to the dead-letter mover's dry-run report of a source; none → the page shows {@link moverCommand}. */
  deadLetterReportUrl?: DeadLetterReportOptions['reportUrl'];
  /** The mover's dry-run command line for a source. Default {@link defaultMoverCommand}. */
  moverCommand?: MoverCommand;
}

/** `dead-letter-mover --queue Q [--dead-letter]`: dry run is the mover's default. */
export const defaultMoverCommand: MoverCommand = (queue, subQueue) => `npx dead-letter-mover --queue ${queue}${subQueue ? ' --dead-letter' : ''}`;

const HTML_HEADERS = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' };
const JSON_HEADERS = { 'cache-control': 'no-store' };

/**
 * The local host's status routes: `GET /` (page), `GET /api/status` (its JSON),
 * `GET /dead-letters` (page) and `GET /api/status/dead-letters` (its JSON). Read-only: the page's
 * "run now" buttons call the existing `POST /api/jobs/{name}/execute`.
 */
export function statusRoutes(ctx: { runtime: StatusSources; stats: StatusStats }, options: StatusRoutesOptions = {}): HttpRoute[] {
  const { runtime, stats } = ctx;
  const report = () =>
    buildDeadLetterReport(runtime.bus, runtime.settings.queues, { peekLimit: options.peekLimit, reportUrl: options.deadLetterReportUrl });
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
      handler: async () => ({ status: 200, headers: HTML_HEADERS, body: renderDeadLetterPage(await report(), options.moverCommand ?? defaultMoverCommand) }),
    },
    { method: 'GET', route: 'status/dead-letters', handler: async () => ({ status: 200, headers: JSON_HEADERS, body: { sources: await report() } }) },
  ];
}
