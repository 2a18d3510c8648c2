import { OdataHttpClient } from '../../../../connectors/odata/odata-http';
import { completeRows, COMPLETION_READ_SIZE } from '../../../../connectors/odata/row-completion';

const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });

/** A service holding `records` that answers `$filter` reads of `(k1 eq … and k2 eq …) or …` on them. */
function service(records: Array<Record<string, unknown>>) {
  const urls: string[] = [];
  const http = new OdataHttpClient({
    serviceRoot: 'http://127.0.0.1:1/odata/',
    label: 'odata connection "erp"',
    fetch: async (url) => {
      const decoded = decodeURIComponent(url);
      urls.push(decoded);
      const filter = /\$filter=([^&]*)/.exec(decoded)?.[1] ?? '';
      const wanted = filter.split(' or ').map((c) => Object.fromEntries([...c.matchAll(/(\w+) eq '?([^')\s]*)'?/g)].map((m) => [m[1], m[2]])));
      return json({ value: records.filter((r) => wanted.some((w) => Object.entries(w).every(([k, v]) => String(r[k]) === v))) });
    },
  });
  return { http, urls };
}

describe('completeRows', () => {
  const options = (http: OdataHttpClient) => ({ http, set: 'Lines', keys: ['doc', 'line'], select: ['doc', 'line', 'qty', 'note'], operation: 'read changes from Lines' });

  it('reads whole only the records that lack a selected property, a few a request, and keeps the order', async () => {
    const records = Array.from({ length: 45 }, (_, i) => ({ doc: 'D1', line: i, qty: i * 10, note: null }));
    const { http, urls } = service(records);
    const rows = [
      { doc: 'D1', line: 100, qty: 1, note: 'complete' },
      ...records.map(({ doc, line, qty }) => ({ doc, line, qty })),
      { '@removed': { reason: 'deleted' }, doc: 'D1', line: 101 },
    ];
    const completed = await completeRows(rows, options(http));
    expect(completed).toHaveLength(47);
    expect(completed[0]).toEqual({ doc: 'D1', line: 100, qty: 1, note: 'complete' });
    expect(completed.slice(1, 46)).toEqual(records);
    expect(completed[46]).toEqual(rows[46]);
    expect(urls).toHaveLength(Math.ceil(45 / COMPLETION_READ_SIZE));
    expect(urls[0]).toBe(`http://127.0.0.1:1/odata/Lines?$filter=${records.slice(0, 20).map((r) => `(doc eq 'D1' and line eq ${r.line})`).join(' or ')}&$select=doc,line,qty,note`);
  });

  it('sends no request when every record is complete, and leaves out a record that is gone when read', async () => {
    const { http, urls } = service([]);
    const complete = [{ doc: 'D1', line: 1, qty: 1, note: null }];
    expect(await completeRows(complete, options(http))).toEqual(complete);
    expect(urls).toEqual([]);
    expect(await completeRows([{ doc: 'D1', line: 2, qty: 3 }], options(http))).toEqual([]);
    expect(urls).toHaveLength(1);
  });
});
