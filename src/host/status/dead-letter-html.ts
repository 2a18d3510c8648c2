import { escapeHtml as e, layout } from './html';
import type { ParkedSource } from './dead-letter-report';
import { NAV } from './status-html';

export const DEAD_LETTER_TITLE = 'Highwater — dead letters';

/** The mover's command line for a dry-run report of one source (shown when no link is wired). */
export type MoverCommand = (queue: string, subQueue: 'deadLetter' | undefined) => string;

/**
 * Dead-letter subqueues and parked queues (transitive, ignored), grouped by recorded error, each
 * with a link to (or the command for) the dead-letter mover's dry-run report.
 */
export function renderDeadLetterPage(sources: readonly ParkedSource[], moverCommand: MoverCommand): string {
  const sections = sources.map((s) => {
    const where = s.subQueue ? `${s.queue} / dead-letter` : s.queue;
    const report = s.reportUrl
      ? `<a class="report" href="${e(s.reportUrl)}">Dry-run report of the dead-letter mover →</a>`
      : `<p class="muted">Dry-run report: <code>${e(moverCommand(s.queue, s.subQueue))}</code></p>`;
    const more = s.peeked < s.count ? ` <span class="muted">(grouped: the first ${s.peeked})</span>` : '';
    const rows = s.groups.map(
      (g) => `<tr data-reason-count="${g.count}"><td class="num">${g.count}</td><td>${e(g.reason)}</td><td>${e(g.jobs.join(', '))}</td>
<td><code>${g.sampleMessageIds.map(e).join('</code> <code>')}</code></td></tr>`,
    );
    return `<section id="${s.subQueue ? 'dl' : 'q'}-${e(s.queue)}" data-source="${e(where)}" data-count="${s.count}"><h2>${e(where)} <span class="muted">(${e(s.role)})</span>: ${s.count}${more}</h2>
${s.problem ? `<p class="problem">${e(s.problem)}</p>` : ''}
<table><thead><tr><th class="num">Count</th><th>Error</th><th>Jobs</th><th>Sample message ids</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>${report}</section>`;
  });
  const body = sections.length > 0 ? sections.join('\n') : '<section><p>No dead-lettered or parked messages.</p></section>';
  return layout(DEAD_LETTER_TITLE, NAV, body);
}
