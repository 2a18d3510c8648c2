import type { ConnectorContext } from '../../../../connectors/base/connector-context';
import { ConnectorRegistry } from '../../../../connectors/base/registry';
import type { SourceConnector } from '../../../../connectors/base/source-connector';
import { createBusinessCentralConnectorFactory } from '../../../../connectors/businesscentral';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import fs from 'node:fs';
import path from 'node:path';
import { metadataExchange } from '../../../unit/connectors/odata/check-kit';
import { type RecordedExchange, replayFetch } from '../../../unit/connectors/odata/replay-fetch';
import { isGuid } from '../../../../connectors/odata/odata-literals';
import { joinSourceKey, splitSourceKey } from '../../../../src/model/source-key';
import { askedKeys } from '../read-by-keys.cases';
import { byKeyExchanges } from './by-key-exchanges';
import { at, type CaseId, type PreparedSource, type SourceHarness, type SourceRecord, type SourceScenario } from '../context';

/**
 * The contract on the Business Central source (watermark `lastModifiedDateTime`) against
 * recorded API v2.0 exchanges, built from each case's records in the shape of
 * `test/unit/connectors/businesscentral/recordings/customers-source.json`: the run's upper
 * bound (`$top=1` by the watermark descending), then the changes between the bounds, `$filter`
 * and `$orderby` on the server, pages of `odata.maxpagesize` linked by absolute `@odata.nextLink`
 * with BC's `$skiptoken`. The company is given by id (no lookup). Entity `customers`: key
 * `id` (GUID), `displayName` the label, `type` the filter's group (`Company` kept, `Person`).
 */
const TENANT = '11111111-2222-3333-4444-555555555555';
const COMPANY = 'f03f6225-081c-ec11-86bc-000d3a4a1b2c';
const API = `https://api.businesscentral.dynamics.com/v2.0/${TENANT}/production/api/v2.0/`;
const ROOT = `${API}companies(${COMPANY})/`;
const METADATA = fs.readFileSync(path.join(__dirname, '../../../unit/connectors/businesscentral/recordings/metadata.xml'), 'utf8');
const SELECT = 'id,lastModifiedDateTime,displayName';
const COMPOSITE_SELECT = 'id,displayName,lastModifiedDateTime';

const id = (n: number) => `9f1a2b3c-44e3-ea11-bb43-${String(n).padStart(12, '0')}`;
const etag = (r: SourceRecord) => `W/"JzQ0O1NRQUFBQUo3LzBNQU1${r.key}Ba${r.at}QUFBQUE9PTE7MDA7Jw=="`;
/** A time as BC writes it: milliseconds only when there are some. */
const bcTime = (s: number) => at(s).replace('.000Z', 'Z');
const literal = (s: number) => WatermarkValue.canonicalize('datetime', at(s));

const answer = (select: string, value: unknown[], next?: string): RecordedExchange['response'] => ({
  status: 200,
  body: { '@odata.context': `${API}$metadata#companies(${COMPANY})/customers(${select})`, value, ...(next ? { '@odata.nextLink': next } : {}) },
});

/** The run's upper bound: the latest change of `seed`, or none. */
function bound(seed: readonly SourceRecord[]): RecordedExchange {
  const latest = [...seed].sort((a, b) => b.at - a.at)[0];
  const value = latest ? [{ '@odata.etag': etag(latest), lastModifiedDateTime: bcTime(latest.at) }] : [];
  return {
    note: 'the run\'s upper bound',
    request: { method: 'GET', url: `${ROOT}customers?$select=lastModifiedDateTime&$filter=lastModifiedDateTime ne null&$orderby=lastModifiedDateTime desc&$top=1` },
    response: answer('lastModifiedDateTime', value),
  };
}

/** The changes in (`after`, latest of `seed`] that `keep` keeps, in pages of `pageSize`, as BC serves them. */
function changes(seed: readonly SourceRecord[], options: { after?: number; pageSize?: number; filtered?: boolean; composite?: boolean } = {}): RecordedExchange[] {
  const pageSize = options.pageSize ?? 100;
  const upper = Math.max(...seed.map((r) => r.at));
  const conditions = [
    ...(options.after === undefined ? [] : [`lastModifiedDateTime gt ${literal(options.after)}`]),
    `lastModifiedDateTime le ${literal(upper)}`,
    ...(options.filtered ? ["(type eq 'Company')"] : []),
  ];
  // Keyed by id and label (the composite-key case): both are selected first and order the changes.
  const select = options.composite ? COMPOSITE_SELECT : SELECT;
  const url = `${ROOT}customers?$select=${select}&$filter=${conditions.join(' and ')}&$orderby=lastModifiedDateTime asc,id asc${options.composite ? ',displayName asc' : ''}`;
  const rows = seed
    .filter((r) => (options.after === undefined || r.at > options.after) && (!options.filtered || r.group !== 'drop'))
    .sort((a, b) => a.at - b.at || a.key - b.key);
  const pages = rows.length === 0 ? [[]] : Array.from({ length: Math.ceil(rows.length / pageSize) }, (_, i) => rows.slice(i * pageSize, (i + 1) * pageSize));
  const skip = (page: readonly SourceRecord[]) => `${url}&$skiptoken='${id(page.at(-1)!.key)}'`;
  return pages.map((page, i) => ({
    note: `changes, page ${i + 1} of ${pages.length}`,
    request: { method: 'GET', url: i === 0 ? url : skip(pages[i - 1]), headers: { prefer: `odata.maxpagesize=${pageSize}` } },
    response: answer(select, page.map(customer), i < pages.length - 1 ? skip(page) : undefined),
  }));
}

/** A customer as BC answers it. */
const customer = (r: SourceRecord) => ({ '@odata.etag': etag(r), id: id(r.key), lastModifiedDateTime: bcTime(r.at), displayName: r.label ?? '' });

/** The reads by key of the case (its keys: `askedKeys`), answered with the seed's customers among them (that `keep` keeps). */
function byKeys(scenario: SourceScenario, options: { filtered?: boolean; composite?: boolean } = {}): RecordedExchange[] {
  const keyOf = (r: SourceRecord) => (options.composite ? joinSourceKey([id(r.key), r.label]) : id(r.key));
  const held = new Map(scenario.seed.filter((r) => !options.filtered || r.group !== 'drop').map((r) => [keyOf(r), r]));
  return byKeyExchanges(askedKeys(scenario.id, scenario.seed, id), {
    url: `${ROOT}customers`,
    select: options.composite ? COMPOSITE_SELECT : SELECT,
    conditions: ['lastModifiedDateTime ne null', ...(options.filtered ? ["(type eq 'Company')"] : [])],
    // `id` is an Edm.Guid (bare), `displayName` an Edm.String (quoted): the API route's $metadata.
    condition: (key) => {
      const [guid, label] = splitSourceKey(key);
      if (!isGuid(guid)) return undefined;
      return options.composite ? `id eq ${guid} and displayName eq '${(label ?? '').replace(/'/g, "''")}'` : `id eq ${guid}`;
    },
    found: (key) => {
      const r = held.get(key);
      return r && customer(r);
    },
    context: `${API}$metadata#companies(${COMPANY})/customers(${options.composite ? COMPOSITE_SELECT : SELECT})`,
  });
}

function script(scenario: SourceScenario): RecordedExchange[] | undefined {
  const seed = scenario.seed;
  const run = (options?: Parameters<typeof changes>[1]) => [bound(seed), ...changes(seed, options)];
  const scripts: Partial<Record<CaseId, () => RecordedExchange[]>> = {
    'in-order': () => run(),
    'page-size': () => run({ pageSize: 2 }),
    serialized: () => run(),
    'empty-source': () => [bound([])],
    'after-watermark': () => [...run({ after: 3 }), ...run({ after: 5 })],
    lookback: () => run({ after: 3 }),
    filter: () => run({ filtered: true }),
    cursor: () => run({ pageSize: 2 }),
    'early-stop': () => [...run({ pageSize: 2 }).slice(0, 2), ...run({ pageSize: 2 })],
    'read-by-keys': () => [...run(), ...byKeys(scenario)],
    'read-by-keys-filter': () => [...run({ filtered: true }), ...byKeys(scenario, { filtered: true })],
    'read-by-keys-composite': () => [...run({ composite: true }), ...byKeys(scenario, { composite: true })],
    'read-by-keys-many': () => [...run(), ...byKeys(scenario)],
  };
  return scripts[scenario.id]?.();
}

export function businessCentralSourceHarness(): SourceHarness {
  return {
    prepare: async (scenario) => {
      const exchanges = script(scenario);
      if (!exchanges) throw new Error(`Business Central source contract harness: no recorded exchanges for case "${scenario.id}"`);
      // The API route's $metadata, read once per connection before its first run.
      const replay = replayFetch([metadataExchange(`${API}$metadata`, METADATA, 'the API route\'s $metadata, once'), ...exchanges]);
      const registry = new ConnectorRegistry([createBusinessCentralConnectorFactory({ fetch: replay.fetch, tokens: () => ({ getToken: async () => 'test-token' }) })]);
      const ctx: ConnectorContext = {
        connection: { name: 'erp', type: 'businesscentral', settings: { tenantId: TENANT, company: COMPANY, auth: { kind: 'managedIdentity' } }, secrets: {}, maxConcurrency: 4 },
        resolveSecret: () => undefined,
        configDir: __dirname,
      };
      const opened: SourceConnector[] = [];
      const prepared: PreparedSource = {
        source: () => {
          const source = registry.createSource(ctx);
          opened.push(source);
          return source;
        },
        entity: 'customers',
        fields: { key: 'id', label: 'displayName', tracker: 'lastModifiedDateTime', group: 'type' },
        watermarkType: 'datetime',
        watermark: (s) => WatermarkValue.initialize('datetime', s === null ? null : at(s)),
        keyValue: id,
        trackerOf: (r) => literal(r.at),
        groupValue: (group) => (group === 'keep' ? 'Company' : 'Person'),
        done: async () => {
          await Promise.all(opened.map((s) => s.close()));
          replay.assertDone();
        },
      };
      return prepared;
    },
    close: async () => undefined,
  };
}
