import { readFileSync } from 'node:fs';
import path from 'node:path';
import { METRIC_DIMENSIONS, METRIC_NAMES, type MetricName } from '../../../src/telemetry/metrics';
import { comparedValues, dimensionsIn, emitSites, emittedDimensionValues, metricsIn } from './emitted-metrics';
import { ROOT } from './infra-files';

/**
 * The workbook's KQL may only use metric and dimension names the code emits. "Emits" is read
 * from the source: every `….track(METRIC_NAMES.x, value, { … })` call under the code folders.
 */
const WORKBOOK = path.join(ROOT, 'infra/workbook/highwater.workbook.json');

interface Query {
  item: string;
  text: string;
}

function workbookQueries(): Query[] {
  const queries: Query[] = [];
  const walk = (items: unknown[]) => {
    for (const raw of items) {
      const item = raw as { name?: string; type?: number; content?: { query?: string; items?: unknown[] } };
      if (typeof item.content?.query === 'string' && item.type === 3) queries.push({ item: item.name ?? '?', text: item.content.query });
      if (Array.isArray(item.content?.items)) walk(item.content.items);
    }
  };
  walk((JSON.parse(readFileSync(WORKBOOK, 'utf8')) as { items: unknown[] }).items);
  return queries;
}

describe('metric emission in the code', () => {
  const sites = emitSites();

  it('finds emission sites (the scan works)', () => {
    expect(sites.length).toBeGreaterThanOrEqual(5);
  });

  it('every emission passes its dimensions as an object literal with exactly the declared names', () => {
    const wrong = sites
      .filter((s) => s.keys === undefined || [...s.keys].sort().join(',') !== [...METRIC_DIMENSIONS[s.metric]].sort().join(','))
      .map((s) => `${s.file}:${s.line} ${s.metric} emits {${s.keys?.join(', ') ?? 'not a literal'}}, declared {${METRIC_DIMENSIONS[s.metric].join(', ')}}`);
    expect(wrong).toEqual([]);
  });

  it('every declared metric is emitted somewhere', () => {
    const emitted = new Set(sites.map((s) => s.metric));
    expect(Object.values(METRIC_NAMES).filter((n) => !emitted.has(n))).toEqual([]);
  });
});

describe('infra/workbook/highwater.workbook.json', () => {
  const queries = workbookQueries();
  const names = new Set<string>(Object.values(METRIC_NAMES));

  it('has the panels the issue asks for', () => {
    const all = queries.map((q) => q.text).join('\n');
    for (const metric of ['ChangesDetected', 'MessagesProcessed', 'QueueDepth', 'WatermarkLagSeconds', 'JobRunDurationMs']) expect(metricsIn(all)).toContain(metric);
    expect(all).toMatch(/FailureRatePercent/);
    expect(queries.length).toBeGreaterThanOrEqual(6);
  });

  it.each(workbookQueries().map((q) => [q.item, q]))('%s: only emitted metric and dimension names', (_item, q) => {
    const query = q as Query;
    const metrics = metricsIn(query.text);
    expect(metrics.length).toBeGreaterThan(0);
    expect(metrics.filter((m) => !names.has(m))).toEqual([]);
    const allowed = new Set(metrics.flatMap((m) => METRIC_DIMENSIONS[m as MetricName]));
    expect(dimensionsIn(query.text).filter((d) => !allowed.has(d))).toEqual([]);
    expect(query.text).toMatch(/^customMetrics\b/);
  });

  it('compares dimensions only with values the code emits', async () => {
    const allowed = await emittedDimensionValues();
    const all = queries.map((q) => q.text).join('\n');
    for (const [dimension, values] of Object.entries(allowed)) {
      expect(comparedValues(all, dimension).filter((v) => !values.has(v))).toEqual([]);
    }
    expect(comparedValues(all, 'state')).toContain('deadLetter');
    expect(comparedValues(all, 'role')).toContain('transitive');
  });
});
