import { escapeHtml as e, layout } from './html';
import type { ParkedSource } from './dead-letter-report';
import type { MoverReportResult, MoverSource } from './mover-report';
import { NAV } from './status-html';

const DEAD_LETTER_TITLE = 'Highwater — dead letters';

/** The mover's dry-run command line for one source. */
export type MoverCommand = (queue: string, subQueue: 'deadLetter' | undefined) => string;

/**
 * Dead-letter subqueues and parked queues (transitive, ignored), grouped by recorded error, each
 * with a link to the dead-letter mover's dry-run report and the command to run it.
 */
export function renderDeadLetterPage(sources: readonly ParkedSource[], moverCommand: MoverCommand): string {
  const sections = sources.map((s) => {
    const where = s.subQueue ? `${s.queue} / dead-letter` : s.queue;
    const report = s.reportUrl ? `<p><a class="report" href="${e(s.reportUrl)}">Dry-run report of the dead-letter mover →</a></p>` : '';
    const more = s.peeked < s.count ? ` <span class="muted">(grouped: the first ${s.peeked})</span>` : '';
    const rows = s.groups.map(
      (g) => `<tr data-reason-count="${g.count}"><td class="num">${g.count}</td><td>${e(g.reason)}</td><td>${e(g.jobs.join(', '))}</td>
<td>${g.sampleSourceKeys.map((key, i) => `<code title="message id ${e(g.sampleMessageIds[i])}">${e(key)}</code>`).join(' ')}</td></tr>`,
    );
    return `<section id="${s.subQueue ? 'dl' : 'q'}-${e(s.queue)}" data-source="${e(where)}" data-count="${s.count}"><h2>${e(where)} <span class="muted">(${e(s.role)})</span>: ${s.count}${more}</h2>
${s.problem ? `<p class="problem">${e(s.problem)}</p>` : ''}
<table><thead><tr><th class="num">Count</th><th>Error</th><th>Jobs</th><th>Sample source keys <span class="muted">(message id on hover)</span></th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>${report}
<p class="muted">From a terminal: <code>${e(moverCommand(s.queue, s.subQueue))}</code> (add <code>--apply</code> to act)</p></section>`;
  });
  const body = sections.length > 0 ? sections.join('\n') : '<section><p>No dead-lettered or parked messages.</p></section>';
  return layout(DEAD_LETTER_TITLE, NAV, body);
}

/** The mover's own text report of a dry run, as it prints it. */
export function renderMoverReportPage(source: MoverSource, command: string, result: MoverReportResult): string {
  const where = source.deadLetter ? `${source.queue} / dead-letter` : source.queue;
  const status = result.exitCode === 0 ? '' : `<p class="problem">The mover exited with code ${result.exitCode}.</p>`;
  const body = `<section id="mover-report" data-exit-code="${result.exitCode}"><h2>Dry run of the dead-letter mover: ${e(where)}</h2>${status}
<p class="muted"><code>${e(command)}</code></p><pre>${e(result.lines.join('\n'))}</pre>
<p><a href="/dead-letters">← Dead letters</a></p></section>`;
  return layout(`${DEAD_LETTER_TITLE}: dry run`, NAV, body);
}
