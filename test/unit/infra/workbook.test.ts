import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { sampleGauges } from '../../../src/runtime/gauges';
import { InMemoryMetrics, METRIC_DIMENSIONS, METRIC_NAMES, type MetricName } from '../../../src/telemetry/metrics';
import { OUTCOMES } from '../../../src/host/status/status-model';
import { DEFAULT_QUEUES } from '../../../src/platform/queue-topology';

/**
 * The workbook's KQL may only use metric and dimension names the code emits. "Emits" is read
 * from the source: every `….track(METRIC_NAMES.x, value, { … })` call under the code folders.
 */
const ROOT = path.resolve(__dirname, '../../..');
const CODE_FOLDERS = ['src', 'functions', 'connectors', 'tools'];
const WORKBOOK = path.join(ROOT, 'infra/workbook/highwater.workbook.json');

interface EmitSite {
  file: string;
  line: number;
  metric: MetricName;
  /** Dimension keys, or undefined when the dimensions are not an object literal. */
  keys?: string[];
}

function tsFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : tsFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

function emitSites(): EmitSite[] {
  const byKey = new Map(Object.entries(METRIC_NAMES));
  const sites: EmitSite[] = [];
  for (const file of CODE_FOLDERS.flatMap((f) => tsFiles(path.join(ROOT, f)))) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'track') {
        const [nameArg, , dimsArg] = node.arguments;
        if (nameArg && ts.isPropertyAccessExpression(nameArg) && nameArg.expression.getText(source) === 'METRIC_NAMES') {
          const metric = byKey.get(nameArg.name.text) as MetricName;
          const keys =
            dimsArg && ts.isObjectLiteralExpression(dimsArg)
              ? dimsArg.properties.map((p) => (p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : '<computed>'))
              : undefined;
          const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
          sites.push({ file: path.relative(ROOT, file), line, metric, keys });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return sites;
}

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

const metricsIn = (kql: string) => [...kql.matchAll(/\bname\s*==\s*"([^"]+)"/g)].map((m) => m[1]);
const dimensionsIn = (kql: string) => [...kql.matchAll(/customDimensions(?:\.(\w+)|\[\s*"([^"]+)"\s*\])/g)].map((m) => m[1] ?? m[2]);
/** `outcome == "Failed"`, `state == "deadLetter"`: compared values of dimensions extended under their own name. */
const comparedValues = (kql: string, dimension: string) => [...kql.matchAll(new RegExp(`\\b${dimension}\\s*==\\s*"([^"]+)"`, 'g'))].map((m) => m[1]);

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
    // Emitted values: outcomes from the processor's type, job-run outcomes, and what the gauge sampler really tracks.
    const gauges = new InMemoryMetrics();
    await sampleGauges({
      jobs: () => [],
      watermarks: { getAllWatermarks: async () => new Map() },
      bus: { counts: async () => ({ active: 1, scheduled: 1, deadLetter: 1 }) },
      queues: DEFAULT_QUEUES,
      metrics: gauges,
      clock: { now: () => new Date() },
      log: { info: () => {}, warn: () => {}, error: () => {} },
    });
    const emitted = (dim: string) => new Set(gauges.points.map((p) => p.dimensions[dim]));
    const allowed: Record<string, Set<string>> = {
      outcome: new Set<string>([...OUTCOMES, 'Succeeded', 'Failed']),
      role: emitted('role'),
      state: emitted('state'),
    };
    const all = queries.map((q) => q.text).join('\n');
    for (const [dimension, values] of Object.entries(allowed)) {
      expect(comparedValues(all, dimension).filter((v) => !values.has(v))).toEqual([]);
    }
    expect(comparedValues(all, 'state')).toContain('deadLetter');
    expect(comparedValues(all, 'role')).toContain('transitive');
  });
});
