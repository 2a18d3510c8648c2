import type { ProcessOutcome } from '../../telemetry/metrics';
import { escapeHtml, formatTime } from './html';
import { OUTCOMES, type ThroughputBucket } from './status-model';

const COLORS: Record<ProcessOutcome, string> = {
  Success: '#2da44e',
  Superseded: '#57ab5a',
  Deferred: '#6e7781',
  Transitive: '#d4a72c',
  Ignored: '#8c959f',
  Failed: '#cf222e',
};

const WIDTH = 600;
const HEIGHT = 140;
const AXIS = 18;

/**
 * Stacked bars of processed messages per minute by outcome (server-rendered SVG: no script, no
 * chart library). Each bar has a `<title>` with its minute and counts.
 */
export function throughputChart(buckets: readonly ThroughputBucket[]): string {
  const max = Math.max(1, ...buckets.map((b) => OUTCOMES.reduce((n, o) => n + b.counts[o], 0)));
  const slot = WIDTH / Math.max(1, buckets.length);
  const plot = HEIGHT - AXIS;
  const bars = buckets.map((bucket, i) => {
    let y = plot;
    const parts = OUTCOMES.filter((o) => bucket.counts[o] > 0).map((o) => {
      const h = (bucket.counts[o] / max) * (plot - 4);
      y -= h;
      return `<rect x="${(i * slot + 1).toFixed(1)}" y="${y.toFixed(1)}" width="${Math.max(1, slot - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="${COLORS[o]}"/>`;
    });
    const total = OUTCOMES.reduce((n, o) => n + bucket.counts[o], 0);
    const detail = OUTCOMES.filter((o) => bucket.counts[o] > 0).map((o) => `${bucket.counts[o]} ${o}`).join(', ');
    const title = `${formatTime(bucket.start)}: ${total} attempts${detail ? ` (${detail})` : ''}`;
    return `<g class="bar" data-start="${escapeHtml(bucket.start)}" data-total="${total}"><title>${escapeHtml(title)}</title>` +
      `<rect x="${(i * slot).toFixed(1)}" y="0" width="${slot.toFixed(1)}" height="${plot}" fill="transparent"/>${parts.join('')}</g>`;
  });
  const axis =
    `<line x1="0" y1="${plot}" x2="${WIDTH}" y2="${plot}" stroke="#d0d7de"/>` +
    `<text x="0" y="${HEIGHT - 4}" font-size="11" fill="#57606a">-${buckets.length} min</text>` +
    `<text x="${WIDTH}" y="${HEIGHT - 4}" font-size="11" fill="#57606a" text-anchor="end">now</text>` +
    `<text x="4" y="12" font-size="11" fill="#57606a">max ${max}/min</text>`;
  return `<svg id="throughput-chart" role="img" aria-label="Processing attempts per minute, last hour" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}">${bars.join('')}${axis}</svg>`;
}

/** Horizontal bars: processed messages per outcome over the last hour. */
export function outcomesChart(totals: Record<ProcessOutcome, number>): string {
  const max = Math.max(1, ...OUTCOMES.map((o) => totals[o]));
  const rowHeight = 24;
  const labelWidth = 90;
  const barSpace = 260 - labelWidth - 50;
  const rows = OUTCOMES.map((o, i) => {
    const y = i * rowHeight;
    const w = (totals[o] / max) * barSpace;
    return `<g class="outcome" data-outcome="${o}" data-count="${totals[o]}">` +
      `<text x="0" y="${y + 16}" font-size="12">${o}</text>` +
      `<rect x="${labelWidth}" y="${y + 4}" width="${w.toFixed(1)}" height="16" fill="${COLORS[o]}"/>` +
      `<text x="${(labelWidth + w + 6).toFixed(1)}" y="${y + 16}" font-size="12">${totals[o]}</text></g>`;
  });
  return `<svg id="outcomes-chart" role="img" aria-label="Outcomes, last hour" viewBox="0 0 260 ${OUTCOMES.length * rowHeight}" width="260" height="${OUTCOMES.length * rowHeight}">${rows.join('')}</svg>`;
}
