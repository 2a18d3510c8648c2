import { ALERT_CONDITIONS, type AlertCondition } from '../../../src/telemetry/alert-conditions';
import type { MetricName } from '../../../src/telemetry/metrics';
import { arrayItems, isoDurationMs, objectEntries, params, resourceBodies, stringLiteral, varLiteral } from './bicep-text';
import { comparedValues, dimensionsIn, emitSites, emittedDimensionValues, metricsIn } from './emitted-metrics';
import { MAIN, bicepSource, mainModuleCall, readRepoFile } from './infra-files';

/**
 * The alert rules (infra/modules/alerts.bicep, queries in infra/alerts/) against the one list of
 * conditions the local host evaluates too (src/telemetry/alert-conditions.ts) and against what the
 * code emits. No Bicep compiler or Azure here: the Bicep text is parsed.
 */
const ALERTS = 'infra/modules/alerts.bicep';

interface Emitted {
  /** Metric → dimension keys of every place that tracks it. */
  dimensions: Map<MetricName, Set<string>>;
  values: Record<string, Set<string>>;
}

let scanned: Promise<Emitted> | undefined;
/** Scanned once per file: parsing every code file takes seconds. */
const emitted = (): Promise<Emitted> => (scanned ??= scan());

async function scan(): Promise<Emitted> {
  const dimensions = new Map<MetricName, Set<string>>();
  for (const site of emitSites()) {
    const keys = dimensions.get(site.metric) ?? new Set<string>();
    for (const key of site.keys ?? []) keys.add(key);
    dimensions.set(site.metric, keys);
  }
  return { dimensions, values: await emittedDimensionValues() };
}

/** What is wrong with one rule's query for its condition; empty when nothing is. */
function queryProblems(kql: string, condition: AlertCondition, code: Emitted): string[] {
  const problems: string[] = [];
  const metrics = metricsIn(kql);
  if (metrics.length === 0) problems.push('names no metric');
  for (const metric of metrics) {
    if (!code.dimensions.has(metric as MetricName)) problems.push(`metric ${metric} is not emitted anywhere in the code`);
    else if (metric !== condition.metric) problems.push(`metric ${metric} is not the condition's ${condition.metric}`);
  }
  const known = new Set(metrics.flatMap((m) => [...(code.dimensions.get(m as MetricName) ?? [])]));
  for (const d of dimensionsIn(kql)) if (!known.has(d)) problems.push(`dimension ${d} is not emitted with ${metrics.join(', ')}`);
  for (const [dimension, values] of Object.entries(code.values)) {
    for (const v of comparedValues(kql, dimension)) if (!values.has(v)) problems.push(`${dimension} == "${v}": the code never emits that value`);
  }
  if (!new RegExp(`\\b${condition.cause}\\s*=\\s*tostring\\(customDimensions\\.${condition.cause}\\)`).test(kql)) problems.push(`does not extend its cause column ${condition.cause}`);
  if (!new RegExp(`\\|\\s*project\\s+${condition.cause}\\b[^|]*$`).test(kql.trim())) problems.push(`does not end projecting ${condition.cause} first`);
  const placeholders = [...kql.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const expected = condition.thresholdParam ? ['threshold'] : [];
  if ([...new Set(placeholders)].join() !== expected.join()) problems.push(`placeholders {${placeholders.join('}, {')}}, expected {${expected.join('}, {')}}`);
  if (!/^(let\s+\w+\s*=\s*)?customMetrics\b/.test(kql.replace(/^\s*\/\/.*$/gm, '').trim())) problems.push('does not read customMetrics');
  return problems;
}

const kqlOf = (condition: AlertCondition) => readRepoFile(`infra/alerts/${condition.queryFile}`);

/** The module's `rules` entries, by id. */
function bicepRules(): Map<string, Map<string, string>> {
  const rules = arrayItems(varLiteral(bicepSource(ALERTS), 'rules')).map((item) => objectEntries(item));
  return new Map(rules.map((r) => [stringLiteral(r.get('id') ?? '') ?? '?', r]));
}

describe('alert conditions (src/telemetry/alert-conditions.ts)', () => {
  it('have distinct ids and query files, and windows that match their milliseconds', () => {
    expect(new Set(ALERT_CONDITIONS.map((c) => c.id)).size).toBe(ALERT_CONDITIONS.length);
    expect(new Set(ALERT_CONDITIONS.map((c) => c.queryFile)).size).toBe(ALERT_CONDITIONS.length);
    for (const c of ALERT_CONDITIONS) expect([c.id, isoDurationMs(c.window)]).toEqual([c.id, c.windowMs]);
    // A threshold parameter comes with a default, and a default with its parameter.
    for (const c of ALERT_CONDITIONS) expect([c.id, c.thresholdParam === undefined]).toEqual([c.id, c.defaultThreshold === undefined]);
  });
});

describe('alert queries (infra/alerts/*.kql)', () => {
  it.each(ALERT_CONDITIONS.map((c) => [c.id, c]))('%s: names only metrics, dimensions and values the code emits, split by its cause', async (_id, c) => {
    expect(queryProblems(kqlOf(c as AlertCondition), c as AlertCondition, await emitted())).toEqual([]);
  });

  it('the check finds a metric nobody emits, a dimension it does not carry and a value never emitted (it can fail)', async () => {
    const [deadLetters] = ALERT_CONDITIONS;
    const broken = kqlOf(deadLetters)
      .replace('"QueueDepth"', '"DeadLetterCount"')
      .replace('customDimensions.state)', 'customDimensions.status)')
      .replace('state == "deadLetter"', 'state == "deadlettered"');
    expect(queryProblems(broken, deadLetters, await emitted())).toEqual([
      'metric DeadLetterCount is not emitted anywhere in the code',
      'dimension queue is not emitted with DeadLetterCount',
      'dimension status is not emitted with DeadLetterCount',
      'state == "deadlettered": the code never emits that value',
    ]);
    const wrongMetric = kqlOf(deadLetters).replace('"QueueDepth"', '"TargetOutage"');
    expect(queryProblems(wrongMetric, deadLetters, await emitted())).toEqual(
      expect.arrayContaining(['metric TargetOutage is not the condition\'s QueueDepth', 'dimension queue is not emitted with TargetOutage']),
    );
  });
});

describe('infra/modules/alerts.bicep', () => {
  const src = bicepSource(ALERTS);
  const declared = params(src);
  const rules = bicepRules();

  it('has exactly one rule per condition, with its window, split, severity and query file', () => {
    expect([...rules.keys()].sort()).toEqual(ALERT_CONDITIONS.map((c) => c.id).sort());
    for (const c of ALERT_CONDITIONS) {
      const rule = rules.get(c.id)!;
      expect([c.id, stringLiteral(rule.get('window') ?? ''), stringLiteral(rule.get('cause') ?? ''), Number(rule.get('severity'))]).toEqual([c.id, c.window, c.cause, c.severity]);
      const load = `loadTextContent('../alerts/${c.queryFile}')`;
      const query = c.thresholdParam ? `replace(${load}, '{threshold}', string(${c.thresholdParam}))` : load;
      expect([c.id, rule.get('query')]).toEqual([c.id, query]);
      expect([c.id, stringLiteral(rule.get('displayName') ?? '')]).toEqual([c.id, `Highwater: ${c.title.toLowerCase()}`]);
      // The list's description, stating the threshold in force.
      const described = c.thresholdParam ? c.description.replace('{threshold}', `\${${c.thresholdParam}}`) : c.description;
      expect([c.id, rule.get('description')?.slice(1, -1).replace(/\\'/g, "'")]).toEqual([c.id, described]);
    }
  });

  it('takes each threshold as a parameter defaulting to the condition\'s default, and main.bicep passes it through with the same default', () => {
    const mainParams = params(bicepSource(MAIN));
    const call = mainModuleCall(ALERTS);
    for (const c of ALERT_CONDITIONS.filter((x) => x.thresholdParam)) {
      const name = c.thresholdParam!;
      expect([name, declared.find((p) => p.name === name)?.defaultValue]).toEqual([name, String(c.defaultThreshold)]);
      expect([name, mainParams.find((p) => p.name === name)?.defaultValue]).toEqual([name, String(c.defaultThreshold)]);
      expect([name, call.params.get(name)]).toEqual([name, name]);
    }
    const thresholdParams = declared.filter((p) => p.name.startsWith('alert') && p.name !== 'alertEmail').map((p) => p.name).sort();
    expect(thresholdParams).toEqual(ALERT_CONDITIONS.flatMap((c) => (c.thresholdParam ? [c.thresholdParam] : [])).sort());
  });

  it('queries the Application Insights component of the monitoring module', () => {
    expect(mainModuleCall(ALERTS).params.get('appInsightsId')).toBe('monitoring.outputs.appInsightsId');
    expect(bicepSource('infra/modules/monitoring.bicep')).toMatch(/^output appInsightsId string = appInsights\.id$/m);
  });

  it('one log alert rule per entry, split by its cause, resolving by itself', () => {
    expect(src).toMatch(/^resource alertRules 'Microsoft\.Insights\/scheduledQueryRules@2023-12-01' = \[for rule in rules: \{/m);
    const [body] = resourceBodies(src, 'Microsoft.Insights/scheduledQueryRules');
    const rule = objectEntries(body);
    expect(rule.get('kind')).toBe("'LogAlert'");
    const props = objectEntries(rule.get('properties') ?? '{}');
    expect(props.get('autoMitigate')).toBe('true');
    expect(props.get('windowSize')).toBe('rule.window');
    expect(arrayItems(props.get('scopes') ?? '[]')).toEqual(['appInsightsId']);
    const [criterion] = arrayItems(objectEntries(props.get('criteria') ?? '{}').get('allOf') ?? '[]').map((c) => objectEntries(c));
    expect(criterion.get('query')).toBe('rule.query');
    expect([criterion.get('timeAggregation'), criterion.get('operator'), criterion.get('threshold')]).toEqual(["'Count'", "'GreaterThan'", '0']);
    const [dimension] = arrayItems(criterion.get('dimensions') ?? '[]').map((d) => objectEntries(d));
    expect([dimension.get('name'), dimension.get('operator'), dimension.get('values')?.replace(/\s+/g, '')]).toEqual(['rule.cause', "'Include'", "['*']"]);
    // ISO 8601 windows Azure Monitor accepts for log alerts, never shorter than the evaluation frequency.
    const frequency = stringLiteral(/^var evaluationFrequency = (.+)$/m.exec(src)?.[1] ?? '') ?? '';
    for (const c of ALERT_CONDITIONS) expect([c.id, c.windowMs >= isoDurationMs(frequency)]).toEqual([c.id, true]);
  });

  it('e-mails through an action group only when an address is given', () => {
    expect(declared.find((p) => p.name === 'alertEmail')?.defaultValue).toBe("''");
    expect(mainModuleCall(ALERTS).params.get('alertEmail')).toBe('alertEmail');
    expect(params(bicepSource(MAIN)).find((p) => p.name === 'alertEmail')?.defaultValue).toBe("''");
    expect(src).toMatch(/^var notify = !empty\(alertEmail\)$/m);
    expect(src).toMatch(/^resource actionGroup 'Microsoft\.Insights\/actionGroups@2022-06-01' = if \(notify\) \{/m);
    const group = objectEntries(resourceBodies(src, 'Microsoft.Insights/actionGroups')[0]);
    expect(group.get('location')).toBe("'global'");
    const groupProps = objectEntries(group.get('properties') ?? '{}');
    expect((stringLiteral(groupProps.get('groupShortName') ?? '') ?? '').length).toBeLessThanOrEqual(12);
    const [receiver] = arrayItems(groupProps.get('emailReceivers') ?? '[]').map((r) => objectEntries(r));
    expect(receiver.get('emailAddress')).toBe('alertEmail');
    const actions = objectEntries(objectEntries(objectEntries(resourceBodies(src, 'Microsoft.Insights/scheduledQueryRules')[0]).get('properties') ?? '{}').get('actions') ?? '{}');
    expect(actions.get('actionGroups')?.replace(/\s+/g, ' ')).toBe('notify ? [ actionGroup.id ] : []');
    const file = JSON.parse(readRepoFile('infra/main.parameters.json')) as { parameters: Record<string, { value: string }> };
    expect(file.parameters.alertEmail.value).toBe('${HIGHWATER_ALERT_EMAIL}');
  });
});
