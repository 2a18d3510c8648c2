import type { SourceConnector } from '../../../../connectors/base/source-connector';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { accountDefinitions, columnDefinitions } from '../../../unit/connectors/dataverse/column-definitions';
import { API, openDataverse } from '../../../unit/connectors/dataverse/dataverse-test-kit';
import type { RecordedExchange } from '../../../unit/connectors/odata/replay-fetch';
import { isGuid } from '../../../../connectors/odata/odata-literals';
import { joinSourceKey, splitSourceKey } from '../../../../src/model/source-key';
import { BYTES_VALUE, INT64_VALUES } from '../../value-matrix';
import { askedKeys, VALUE_KEYS } from '../read-by-keys.cases';
import { byKeyExchanges } from './by-key-exchanges';
import type { CaseId, PreparedSource, PreparedValues, SourceHarness, SourceRecord, SourceScenario } from '../context';

/**
 * The contract on the Dataverse source with change tracking (`watermark.field:
 * "@odata.deltaLink"`) against recorded Web API exchanges, built from each case's records in
 * the shape of `test/unit/connectors/dataverse/recordings/change-tracking-*.json`: tracked reads
 * with `Prefer: odata.track-changes,odata.maxpagesize=N`, pages linked by `@odata.nextLink`
 * with Dataverse's paging cookie, the last one ending with `@odata.deltaLink`; following a
 * delta link gives what changed since, removed records as `$deletedEntity` entries. Entity
 * `accounts`: key `accountid`, `name` the label, `statecode` the filter's group (0 active, kept).
 * Every change of a run carries the run's stamp (the connection's clock) as its tracker.
 */
const NOW = '2026-03-01T10:00:00.000Z';
/** The stamp of the stored watermarks: the run before the case's. */
const STORED = '2026-02-28T00:00:00.000Z';
const SELECT = 'accountid,name';

const guid = (n: number) => `5a0f9a3e-3ef0-f011-8544-${String(n).padStart(12, '0')}`;
const statecode = (r: SourceRecord) => (r.group === 'drop' ? 1 : 0);
/** The delta link Dataverse hands out after the changes up to second `s`; `serial` tells later tokens for the same state apart. */
const link = (s: number, select = SELECT, serial = s) =>
  `${API}accounts?$select=${select}&$deltatoken=${920000 + serial}%2101%2f01%2f2026%2000%3a00%3a${String(s).padStart(2, '0')}`;
const cookie = (page: number, first: number, last: number) =>
  `%3Ccookie%20pagenumber=%22${page + 1}%22%20pagingcookie=%22%253ccookie%2520page%253d%2522${page}%2522%253e%253caccountid%2520last%253d%2522%257b` +
  `${guid(last).toUpperCase()}%257d%2522%2520first%253d%2522%257b${guid(first).toUpperCase()}%257d%2522%2520%252f%253e%253c%252fcookie%253e%22%20istracking=%22True%22%20/%3E`;

function entry(r: SourceRecord, select: string): Record<string, unknown> {
  if (r.deleted) return { '@odata.context': `${API}$metadata#accounts/$deletedEntity`, id: guid(r.key), reason: 'deleted' };
  return { '@odata.etag': `W/"9152${r.key}${r.at}"`, accountid: guid(r.key), name: r.label ?? null, ...(select.includes('statecode') ? { statecode: statecode(r) } : {}) };
}

/** One tracked read and Dataverse's answer: `rows`, then a next link or the delta link. */
function tracked(note: string, url: string, pageSize: number, rows: readonly SourceRecord[], then: { next: string } | { delta: string }, select = SELECT, delta = false): RecordedExchange {
  const prefer = `odata.track-changes,odata.maxpagesize=${pageSize}`;
  return {
    note,
    request: { method: 'GET', url, headers: { prefer } },
    response: {
      status: 200,
      headers: { 'preference-applied': prefer },
      body: {
        '@odata.context': `${API}$metadata#accounts(${select})${delta ? '/$delta' : ''}`,
        value: rows.map((r) => entry(r, select)),
        ...('next' in then ? { '@odata.nextLink': then.next } : { '@odata.deltaLink': then.delta }),
      },
    },
  };
}

/** The first run's tracked read of the whole table, in pages of `pageSize` (Dataverse orders by the key). */
function initialRead(seed: readonly SourceRecord[], pageSize: number, select = SELECT): RecordedExchange[] {
  const rows = [...seed].sort((a, b) => a.key - b.key);
  const initial = `${API}accounts?$select=${select}`;
  const pages = rows.length === 0 ? [[]] : Array.from({ length: Math.ceil(rows.length / pageSize) }, (_, i) => rows.slice(i * pageSize, (i + 1) * pageSize));
  const last = Math.max(0, ...seed.map((r) => r.at));
  return pages.map((page, i) => {
    const url = i === 0 ? initial : `${initial}&$skiptoken=${cookie(i, pages[i - 1][0].key, pages[i - 1].at(-1)!.key)}`;
    const then = i < pages.length - 1 ? { next: `${initial}&$skiptoken=${cookie(i + 1, page[0].key, page.at(-1)!.key)}` } : { delta: link(last, select) };
    return tracked(`initial read, page ${i + 1} of ${pages.length}`, url, pageSize, page, then, select);
  });
}

/** A later run: the stored link after second `from`, answered with the changes since. */
const follow = (from: number, rows: readonly SourceRecord[], to: number, serial = to) =>
  tracked(`follow the delta link of second ${from}`, link(from), 100, rows, { delta: link(to, SELECT, serial) }, SELECT, true);

/**
 * The reads by key of the case (its keys: `askedKeys`): plain reads of `accounts` (not tracked),
 * `$filter` on the keys alone (the job filter is applied to the records read, as change tracking
 * does: its field is selected), answered with the seed's records among them; a removed record is
 * not there.
 */
function byKeys(scenario: SourceScenario, options: { filtered?: boolean; composite?: boolean } = {}): RecordedExchange[] {
  const select = options.filtered ? `${SELECT},statecode` : SELECT;
  const keyOf = (r: SourceRecord) => (options.composite ? joinSourceKey([guid(r.key), r.label]) : guid(r.key));
  const held = new Map(scenario.seed.filter((r) => !r.deleted).map((r) => [keyOf(r), r]));
  return byKeyExchanges(askedKeys(scenario.id, scenario.seed, guid), {
    url: `${API}accounts`,
    select,
    // `accountid` a Uniqueidentifier (bare), `name` a String (quoted): the table's column definitions.
    condition: (key) => {
      const [id, label] = splitSourceKey(key);
      if (!isGuid(id)) return undefined;
      return options.composite ? `accountid eq ${id} and name eq '${(label ?? '').replace(/'/g, "''")}'` : `accountid eq ${id}`;
    },
    found: (key) => {
      const r = held.get(key);
      return r && entry(r, select);
    },
    context: `${API}$metadata#accounts(${select})`,
  });
}

function script(scenario: SourceScenario): RecordedExchange[] | undefined {
  const seed = scenario.seed;
  const scripts: Partial<Record<CaseId, () => RecordedExchange[]>> = {
    'in-order': () => initialRead(seed, 100),
    'page-size': () => initialRead(seed, 2),
    serialized: () => initialRead(seed, 100),
    'empty-source': () => initialRead([], 100),
    'after-watermark': () => [follow(3, seed.slice(3), 5), follow(5, [], 5, 55)],
    // The filter field is selected so that the records read carry it (Dataverse refuses $filter on tracked reads).
    filter: () => initialRead(seed, 100, `${SELECT},statecode`),
    cursor: () => initialRead(seed, 2),
    'early-stop': () => [initialRead(seed, 2)[0], ...initialRead(seed, 2)],
    deletes: () => [follow(0, seed, 3)],
    timestamps: () => [...initialRead(seed, 100), follow(3, [], 3, 33)],
    'read-by-keys': () => [...initialRead(seed, 100), ...byKeys(scenario)],
    'read-by-keys-filter': () => [...initialRead(seed, 100, `${SELECT},statecode`), ...byKeys(scenario, { filtered: true })],
    'read-by-keys-deletes': () => [follow(0, seed, 3), ...byKeys(scenario)],
    'read-by-keys-composite': () => [...initialRead(seed, 100), ...byKeys(scenario, { composite: true })],
    'read-by-keys-many': () => [...initialRead(seed, 100), ...byKeys(scenario)],
  };
  return scripts[scenario.id]?.();
}

/**
 * The value matrix on table `new_value` (entity set `new_values`, key `new_ref`): `new_big` a
 * BigInt, `entityimage` its image. Dataverse writes a BigInt as a bare JSON number (the answer's
 * text keeps every digit) and an image as base64; its column definitions make that text bytes.
 */
function valuesSource(id: 'values' | 'read-by-keys-values'): PreparedValues {
  const select = 'new_ref,new_big,entityimage';
  const prefer = 'odata.track-changes,odata.maxpagesize=100';
  const rows = INT64_VALUES.map((digits, i) =>
    `{"@odata.etag":"W/\\"7301${i}\\"","new_ref":${i + 1},"new_big":${digits},"entityimage":${i === 0 ? JSON.stringify(BYTES_VALUE.toString('base64')) : 'null'}}`);
  const body = `{"@odata.context":"${API}$metadata#new_values(${select})","value":[${rows.join(',')}],"@odata.deltaLink":"${API}new_values?$select=${select}&$deltatoken=930001%2101%2f01%2f2026%2000%3a00%3a00"}`;
  // Read by key (not tracked): `new_ref` an Integer, its keys bare.
  const byKey = VALUE_KEYS.map((key) => `(new_ref eq ${key})`).join(' or ');
  const dv = openDataverse([
    columnDefinitions('new_values', [['new_ref', 'Integer', 'IntegerType'], ['new_big', 'BigInt', 'BigIntType'], ['entityimage', 'Virtual', 'ImageType']]),
    {
      note: 'the initial tracked read of the matrix',
      request: { method: 'GET', url: `${API}new_values?$select=${select}`, headers: { prefer } },
      response: { status: 200, headers: { 'content-type': 'application/json; odata.metadata=minimal', 'preference-applied': prefer }, body },
    },
    ...(id === 'values' ? [] : [{
      note: 'the matrix read by key',
      request: { method: 'GET', url: `${API}new_values?$filter=${byKey}&$select=${select}`, headers: { prefer: `odata.maxpagesize=${VALUE_KEYS.length}` } },
      response: { status: 200, headers: { 'content-type': 'application/json; odata.metadata=minimal' }, body: `{"@odata.context":"${API}$metadata#new_values(${select})","value":[${rows.join(',')}]}` },
    }]),
  ], {}, NOW);
  const opened: SourceConnector[] = [];
  return {
    source: () => {
      const source = dv.source();
      opened.push(source);
      return source;
    },
    entity: 'new_values',
    key: 'new_ref',
    tracker: '@odata.deltaLink',
    watermarkType: 'string',
    columns: { int64: 'new_big', bytes: 'entityimage' },
    done: async () => {
      await Promise.all(opened.map((s) => s.close()));
      dv.replay.assertDone();
    },
  };
}

export function dataverseSourceHarness(): SourceHarness {
  return {
    prepareValues: async (id = 'values') => valuesSource(id),
    prepare: async (scenario) => {
      const exchanges = script(scenario);
      if (!exchanges) throw new Error(`Dataverse source contract harness: no recorded exchanges for case "${scenario.id}"`);
      // The table's column definitions, read once per connection before its first run.
      const dv = openDataverse([accountDefinitions(), ...exchanges], {}, NOW);
      const opened: SourceConnector[] = [];
      const prepared: PreparedSource = {
        source: () => {
          const source = dv.source();
          opened.push(source);
          return source;
        },
        entity: 'accounts',
        fields: { key: 'accountid', label: 'name', tracker: '@odata.deltaLink', group: 'statecode' },
        watermarkType: 'string',
        watermark: (s) => WatermarkValue.initialize('string', s === null ? null : `${STORED} ${link(s)}`),
        keyValue: guid,
        trackerOf: () => NOW,
        groupValue: (group) => (group === 'keep' ? 0 : 1),
        done: async () => {
          await Promise.all(opened.map((s) => s.close()));
          dv.replay.assertDone();
        },
      };
      return prepared;
    },
    close: async () => undefined,
  };
}
