import type { ListedMessage, MoverReport, ReportGroup } from './report';

/**
 * The report as text lines: what the command line prints and the status page's dry run shows
 * (the `--json` form is the report object itself).
 */

function heading(group: ReportGroup): string {
  const rule = group.rule === undefined ? '' : `rule "${group.rule}" (rules[${group.ruleIndex}])`;
  switch (group.decision) {
    case 'rule':
      return group.action === 'Resubmit' ? `Resubmit → ${group.target}, ${rule}` : `${group.action}, ${rule}`;
    case 'superseded':
      return `Skip, superseded by a newer change of the same record, ${rule}`;
    case 'noTarget':
      return `None, cannot resubmit (no work queue known), ${rule}`;
    case 'noRule':
      return 'None, no rule matched';
    case 'capped':
      return `None, requeued too often by the schedule (left for a person), ${rule}`;
    case 'newerApplied':
      return `None, superseded: a newer change of the record was applied since (left in place; --include-superseded resubmits it), ${rule}`;
    case 'forced':
      return `Resubmit → ${group.target}, superseded but forced by --include-superseded: overwrites the newer change, ${rule}`;
  }
}

function groupLines(group: ReportGroup): string[] {
  const reason = group.deadLetterReason === undefined ? '' : `[${group.deadLetterReason}] `;
  return [
    `  ${String(group.count).padStart(5)}  ${reason}${group.errorMessage}`,
    `         oldest ${group.oldest}  newest ${group.newest}`,
    `         e.g. ${group.sampleMessageIds.join(', ')}`,
  ];
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function targets(byTarget: Record<string, number>): string {
  const parts = Object.entries(byTarget).map(([queue, n]) => `${queue} ${n}`);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

function messageLine(m: ListedMessage): string {
  const fields = [
    `#${m.sequenceNumber}`,
    m.messageId,
    m.jobName ?? '-',
    `key=${m.sourceKey ?? '-'}`,
    `ct=${m.changeTracker ?? '-'}`,
    m.action,
    m.newerApplied ?? '',
    m.deadLetterReason ? `[${m.deadLetterReason}]` : '',
    m.errorMessage ?? '',
  ];
  const outcome = m.outcome === undefined ? '' : ` → ${m.outcome.status}${m.outcome.status === 'failed' ? `: ${m.outcome.error}` : ''}`;
  return `  ${fields.filter((f) => f !== '').join('  ')}${outcome}`;
}

export function formatReport(report: MoverReport): string[] {
  const { snapshot, planned, results } = report;
  const { firstSequence: first, lastSequence: last } = snapshot;
  const range = first === undefined ? '' : first === last ? `, sequence ${first}` : `, sequence ${first}–${last}`;
  const lines = [
    report.mode === 'dry-run' ? 'Dry run: nothing is changed (add --apply to act).' : 'Applied.',
    `Source:   ${report.source} on ${report.bus}`,
    `Rules:    ${report.rules.file} (${plural(report.rules.count, 'rule')})`,
    `Snapshot: ${plural(snapshot.messages, 'message')}${range}; ${snapshot.inScope} in scope${snapshot.truncatedAtMax ? ' (stopped at --max)' : ''}`,
  ];
  let section = '';
  for (const group of report.groups) {
    const title = heading(group);
    if (title !== section) {
      const total = report.groups.filter((g) => heading(g) === title).reduce((sum, g) => sum + g.count, 0);
      lines.push('', `${title}: ${total}`);
      section = title;
    }
    lines.push(...groupLines(group));
  }
  if (report.problems.length > 0) {
    lines.push('', `Cannot resubmit ${plural(report.problems.length, 'message')}:`);
    lines.push(...report.problems.map((p) => `  ${p.messageId} (#${p.sequenceNumber}): ${p.error}`));
  }
  if (report.messages) lines.push('', 'Messages:', ...report.messages.map(messageLine));
  lines.push('');
  const extra = [planned.superseded && `${planned.superseded} superseded`, planned.forced && `${planned.forced} superseded but forced`].filter(Boolean);
  const plan = `resubmit ${planned.resubmit}${targets(planned.byTarget)}, remove ${planned.skip}, leave ${planned.none}${extra.length > 0 ? ` (${extra.join(', ')})` : ''}`;
  if (results === undefined) {
    lines.push(`--apply would: ${plan}.`);
    return lines;
  }
  lines.push(`Planned: ${plan}.`);
  lines.push(
    `Done: resubmitted ${results.resubmitted}, removed ${results.skipped}, failed ${results.failed}` +
      `${results.released > 0 ? `; ${plural(results.released, 'other message')} received and released untouched` : ''}` +
      `${results.interrupted ? '; interrupted before the end' : ''}.`,
  );
  for (const f of results.failures) lines.push(`  failed: ${f.messageId} (#${f.sequenceNumber}): ${f.error}`);
  for (const e of results.releaseErrors) lines.push(`  not released (its lock expires on its own): ${e}`);
  return lines;
}
