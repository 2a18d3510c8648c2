import { escapeHtml as e, formatSeconds, formatTime, layout } from './html';
import { outcomesChart, throughputChart } from './status-charts';
import { ENDED, OUTCOMES, type IncidentStatus, type JobStatus, type QueueStatus, type RunStatus, type StatusModel } from './status-model';
import type { PushStatus } from './push-status';
import { conflictsSection } from './conflict-status';
import { statusScript } from './status-script';
import { outcomeTotals } from './throughput';

const STATUS_TITLE = 'Highwater — local status';

/** Navigation shared by the status pages. */
export const NAV = '<nav><a href="/">Status</a> · <a href="/dead-letters">Dead letters</a> · <a href="/api/status">JSON</a></nav>';

/** The status page: server-rendered HTML with inline SVG charts and one small inline script. */
export function renderStatusPage(model: StatusModel, refreshMs = 5_000): string {
  const body = [
    `<p class="muted">Host started ${e(formatTime(model.startedAt))} · page generated ${e(formatTime(model.generatedAt))}</p>`,
    model.configError ? `<section class="problem"><h2>Configuration not loaded</h2><p>${e(model.configError)}</p></section>` : '',
    incidentsSection(model.incidents),
    conflictsSection(model),
    ...model.targetOutages.map(
      (o) =>
        `<section class="problem"><h2>Target ${e(o.connection)} is in outage</h2><p>Since ${e(o.since)} after ${o.failures} failed ${o.failures === 1 ? 'group' : 'groups'}: ${e(o.error)}. Its messages wait in their queues (longer the longer the outage lasts, at most 5 minutes at a time); the next probe goes through at ${e(o.nextProbeAt)}.</p></section>`,
    ),
    ...model.targetRecoveries.map(
      (r) =>
        `<section><h2>Target ${e(r.connection)} is back from an outage</h2><p>Messages deferred during it come back until ${e(formatTime(r.until))}; until then a record that misses its parent waits for them instead of using up its retries.</p></section>`,
    ),
    jobsSection(model.jobs),
    pushSection(model.push),
    queuesSection(model),
    chartsSection(model),
    runsSection(model.recentRuns),
    failuresSection(model),
  ].join('\n');
  return layout(STATUS_TITLE, NAV, body, statusScript(refreshMs));
}

/** The alert conditions as incidents: what the Azure alert rules would fire on, open ones first. */
function incidentsSection(incidents: readonly IncidentStatus[]): string {
  const open = incidents.filter((i) => i.state === 'open').length;
  const rows = incidents.map(
    (i) => `<tr data-incident="${e(i.condition)}" data-cause="${e(i.cause)}" data-state="${i.state}"${i.state === 'open' ? ' class="problem"' : ''}>
<td>${i.state === 'open' ? '<strong>open</strong>' : 'closed'}</td><td>${e(i.title)}</td><td>${e(i.causeKind)} <strong>${e(i.cause)}</strong></td><td>${e(i.detail)}</td>
<td>${e(formatTime(i.openedAt))}</td><td>${e(formatTime(i.closedAt))}</td></tr>`,
  );
  return `<section id="incidents"><h2>Incidents (${open} open)</h2><table>
<thead><tr><th>State</th><th>Condition</th><th>Cause</th><th>Found</th><th>Opened</th><th>Closed</th></tr></thead>
<tbody>${rows.join('\n') || '<tr><td colspan="6" class="muted">No incident in the last 24 hours.</td></tr>'}</tbody></table></section>`;
}

function jobsSection(jobs: readonly JobStatus[]): string {
  const rows = jobs.map((j) => {
    // A disabled response job is not idle: its queue receives what its source jobs' targets answer.
    const fed = !j.enabled && j.fedBy.length > 0;
    const outcome = j.lastRun
      ? `<td class="${e(j.lastRun.outcome)}">${e(j.lastRun.outcomeText)}${j.lastRun.error ? `: ${e(j.lastRun.error)}` : ''}</td>`
      : `<td class="muted">${fed ? `fed by responses of ${e(j.fedBy.join(', '))}` : 'never run'}</td>`;
    const lagTitle = j.watermarkAgeSeconds === null ? 'since the start of the last run that read the source to the end' : `newest change read ${formatSeconds(j.watermarkAgeSeconds)} ago`;
    return `<tr data-job="${e(j.name)}">
<td><strong>${e(j.name)}</strong>${j.enabled ? '' : ` <span class="muted">(${fed ? 'response job' : 'disabled'})</span>`}${j.problem ? `<div class="problem">${e(j.problem)}</div>` : ''}</td>
<td><code>${e(j.schedule)}</code></td><td>${e(j.priority)}</td>
<td>${e(formatTime(j.lastRun?.startedAt ?? j.lastCronRun))}</td><td>${e(formatTime(j.nextRun))}</td>
<td title="${e(j.watermarkType)}"><code>${e(j.watermark ?? '—')}</code></td><td class="num" data-lag="${j.lagSeconds ?? ''}" title="${e(lagTitle)}">${e(formatSeconds(j.lagSeconds))}</td>
${outcome}
<td>${fed ? '' : `<button type="button" data-run-job="${e(j.name)}">Run now</button>`}</td></tr>`;
  });
  return `<section id="jobs"><h2>Jobs (${jobs.length})</h2><table>
<thead><tr><th>Job</th><th>Schedule</th><th>Priority</th><th>Last run</th><th>Next run</th><th>Watermark</th><th class="num" title="how far the job is behind its source: since the start of its last complete read">Behind source</th><th>Last outcome</th><th></th></tr></thead>
<tbody>${rows.join('\n') || '<tr><td colspan="9" class="muted">No jobs configured.</td></tr>'}</tbody></table></section>`;
}

/** Jobs that take pushed changes; shown only when there are any. */
function pushSection(push: readonly PushStatus[]): string {
  if (push.length === 0) return '';
  const rows = push.map((p) => {
    const s = p.subscription;
    const subscription =
      s === undefined
        ? '<td colspan="5" class="muted">no subscription (the sender posts to the route)</td>'
        : s === null
          ? '<td colspan="5" class="muted">not kept yet (the keeper runs at start, then every hour)</td>'
          : `<td>${e(s.resource ?? '—')}${s.subscriptionId ? `<div class="muted">${e(s.subscriptionId)}</div>` : ''}</td>
<td data-expires="${e(s.expiresAt ?? '')}">${e(formatTime(s.expiresAt))}</td><td>${e(formatTime(s.lastRenewedAt))}</td>
<td>${e(s.lastAction)} at ${e(formatTime(s.lastCheckedAt))}</td>
<td>${s.lastError ? `${e(s.lastError)} <span class="muted">(${e(formatTime(s.lastErrorAt))})</span>` : '—'}</td>`;
    return `<tr data-push-job="${e(p.job)}"${s?.problem ? ' class="problem"' : ''}><td><strong>${e(p.job)}</strong>${s?.problem ? `<div class="problem">${e(s.problem)}</div>` : ''}</td>
<td>${e(p.format)}</td><td><code>POST ${e(p.route)}</code></td>${subscription}</tr>`;
  });
  return `<section id="push"><h2>Push (${push.length})</h2><table>
<thead><tr><th>Job</th><th>Format</th><th>Route</th><th>Subscribed resource</th><th>Expires</th><th>Last renewal</th><th>Last check</th><th>Last error</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></section>`;
}

function queuesSection(model: StatusModel): string {
  const count = (n: number | null) => (n === null ? '?' : String(n));
  const rows = model.queues.map(
    (q: QueueStatus) => `<tr data-queue="${e(q.queue)}" data-active="${q.active ?? ''}" data-dead-letter="${q.deadLetter ?? ''}">
<td>${e(q.queue)}${q.problem ? `<div class="problem">${e(q.problem)}</div>` : ''}</td><td>${e(q.role)}</td>
<td class="num">${count(q.active)}</td><td class="num">${count(q.scheduled)}</td>
<td class="num">${q.deadLetter ? `<a href="/dead-letters#dl-${e(q.queue)}">${q.deadLetter}</a>` : count(q.deadLetter)}</td>
${ENDED.map((o) => `<td class="num">${q.processed[o]}</td>`).join('')}<td class="num" data-attempts="${q.attempts}">${q.attempts}</td></tr>`,
  );
  const totals =
    ENDED.map((o) => `<td class="num ${o}" data-total-outcome="${o}">${model.processedTotals[o]}</td>`).join('') +
    `<td class="num" data-total-attempts="${model.attemptTotal}">${model.attemptTotal}</td>`;
  return `<section id="queues"><h2>Queues</h2><table>
<thead><tr><th>Queue</th><th>Role</th><th class="num">Active</th><th class="num">Scheduled</th><th class="num">Dead-letter</th>
${ENDED.map((o) => `<th class="num" title="messages that ended ${o}, each once">${o}</th>`).join('')}<th class="num" title="every processing, retries and deferrals included">Attempts</th></tr></thead>
<tbody>${rows.join('\n')}</tbody><tfoot><tr><th colspan="5">Messages processed since start (each once, by how it ended)</th>${totals}</tr></tfoot></table></section>`;
}

function chartsSection(model: StatusModel): string {
  const note =
    model.throughputSource === 'hostStats' ? '<p class="muted">From the host\'s recent list (bounded): busy periods are undercounted.</p>' : '';
  return `<section id="charts"><h2>Last hour</h2><p>${model.detectedLastHour} changes detected · ${OUTCOMES.reduce((n, o) => n + outcomeTotals(model.throughput)[o], 0)} processing attempts</p>
<div class="charts"><figure><figcaption>Attempts per minute</figcaption>${throughputChart(model.throughput)}</figure>
<figure><figcaption>Outcomes</figcaption>${outcomesChart(outcomeTotals(model.throughput))}</figure></div>${note}</section>`;
}

function runsSection(runs: readonly RunStatus[]): string {
  const rows = runs.map((r) => {
    const started = r.collapsed
      ? `${e(formatTime(r.startedAt))}<div class="muted">${r.collapsed.runs} runs since ${e(formatTime(r.collapsed.since))}, all finding nothing</div>`
      : e(formatTime(r.startedAt));
    return `<tr data-run-job="${e(r.job)}" data-trigger="${e(r.trigger)}" data-started="${e(r.startedAt)}"${r.collapsed ? ` data-collapsed="${r.collapsed.runs}"` : ''}>
<td>${started}</td><td>${e(r.job)}</td><td>${e(r.trigger)}</td><td class="num">${r.durationMs} ms</td>
<td class="num">${r.detected}</td><td class="num">${r.sent}</td><td class="${e(r.outcome)}">${e(r.outcomeText)}${r.error ? `: ${e(r.error)}` : ''}</td></tr>`;
  });
  return `<section id="runs"><h2>Recent runs</h2><table>
<thead><tr><th>Started</th><th>Job</th><th>Trigger</th><th class="num">Duration</th><th class="num">Detected</th><th class="num">Sent</th><th>Outcome</th></tr></thead>
<tbody>${rows.join('\n') || '<tr><td colspan="7" class="muted">No runs yet.</td></tr>'}</tbody></table></section>`;
}

function failuresSection(model: StatusModel): string {
  const rows = model.failures.map(
    (f) =>
      `<tr data-failure-count="${f.count}" data-failure-messages="${f.messages}" data-dead-lettered="${f.deadLettered}"><td class="num">${f.messages}</td><td class="num">${f.count}</td><td class="num">${f.deadLettered ? `<a href="/dead-letters">${f.deadLettered}</a>` : 0}</td><td>${e(f.error)}</td><td>${e(f.jobs.join(', '))}</td><td>${e(formatTime(f.lastAt))}</td></tr>`,
  );
  return `<section id="failures"><h2>Recent failures by error</h2><table>
<thead><tr><th class="num" title="messages that failed in this host recently">Messages</th><th class="num" title="their failed attempts (a retried message fails more than once)">Failed attempts</th><th class="num" title="messages with this error waiting in dead-letter subqueues">Dead-lettered</th><th>Error</th><th>Jobs</th><th>Last</th></tr></thead>
<tbody>${rows.join('\n') || '<tr><td colspan="6" class="muted">No failures.</td></tr>'}</tbody></table>
<p><a href="/dead-letters">Dead letters and parked messages →</a></p></section>`;
}
