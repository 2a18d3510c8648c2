import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { OUTCOMES } from '../../../src/host/status/status-model';
import { DEFAULT_QUEUES } from '../../../src/platform/queue-topology';
import { sampleGauges } from '../../../src/runtime/gauges';
import { InMemoryMetrics, METRIC_NAMES, type MetricName } from '../../../src/telemetry/metrics';
import { ROOT } from './infra-files';

/**
 * What the code emits, read from the code itself: every `….track(METRIC_NAMES.x, value, { … })`
 * call under the code folders, and the dimension values the gauge sampler really tracks. KQL in
 * infra/ (the workbook, the alert rules) is checked against it.
 */
const CODE_FOLDERS = ['src', 'functions', 'connectors', 'tools'];

export interface EmitSite {
  file: string;
  line: number;
  metric: MetricName;
  /** Dimension keys, or undefined when the dimensions are not an object literal. */
  keys?: string[];
}

function tsFilesUnder(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : tsFilesUnder(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

export function emitSites(): EmitSite[] {
  const byKey = new Map(Object.entries(METRIC_NAMES));
  const sites: EmitSite[] = [];
  for (const file of CODE_FOLDERS.flatMap((f) => tsFilesUnder(path.join(ROOT, f)))) {
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

/** Values the code emits per compared dimension: outcomes (processing and job runs), and the gauge sampler's roles and states. */
export async function emittedDimensionValues(): Promise<Record<'outcome' | 'role' | 'state', Set<string>>> {
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
  return { outcome: new Set<string>([...OUTCOMES, 'Succeeded', 'Failed']), role: emitted('role'), state: emitted('state') };
}

/** Metric names a KQL query filters on (`name == "…"`). */
export const metricsIn = (kql: string): string[] => [...kql.matchAll(/\bname\s*==\s*"([^"]+)"/g)].map((m) => m[1]);
/** Custom dimensions a KQL query reads. */
export const dimensionsIn = (kql: string): string[] => [...kql.matchAll(/customDimensions(?:\.(\w+)|\[\s*"([^"]+)"\s*\])/g)].map((m) => m[1] ?? m[2]);
/** `outcome == "Failed"`, `state == "deadLetter"`: compared values of dimensions extended under their own name. */
export const comparedValues = (kql: string, dimension: string): string[] =>
  [...kql.matchAll(new RegExp(`\\b${dimension}\\s*==\\s*"([^"]+)"`, 'g'))].map((m) => m[1]);
