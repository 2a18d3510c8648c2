import { OdataHttpClient } from '../../../../connectors/odata/odata-http';
import { OdataSource } from '../../../../connectors/odata/odata-source';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { replayFetch } from './replay-fetch';

const ROOT = 'https://erp.contoso.example/odata/v4/sales/';
const mapping: Mapping = {
  name: 'customers', source: { entity: 'Customers', key: ['ID'] }, target: { entity: 'accounts', key: ['accountnumber'] },
  fields: [{ target: 'accountnumber', source: 'number' }, { target: 'name', source: 'name' }],
};
const job: Job = {
  name: 'erp-customers', order: 1, schedule: '0 * * * * *', enabled: true, source: 'erp', target: 'crm', mapping: 'customers',
  priority: 'normal', watermark: { type: 'string', field: '@odata.deltaLink' }, filter: [], action: JobActionType.NewUpdate,
  skipOutdatedMessages: false, skipUnchanged: false, pageSize: 50, lookbackSeconds: 0,
};

describe('OData change tracking with an expired link', () => {
  it('starts a logged full resync when the service answers the stored link with 410 Gone', async () => {
    const stale = `${ROOT}Customers?$deltatoken=C8AFE6A1`;
    const replay = replayFetch([
      { request: { method: 'GET', url: stale }, response: { status: 410, statusText: 'Gone', body: { error: { code: 'Gone', message: 'The delta token is no longer valid.' } } } },
      {
        request: { method: 'GET', url: `${ROOT}Customers?$select=ID,number,name`, headers: { prefer: 'odata.track-changes,odata.maxpagesize=50' } },
        response: { status: 200, body: { value: [{ ID: 7, number: '10000', name: 'Adatum Corporation' }], '@odata.deltaLink': `${ROOT}Customers?$deltatoken=D9B0F7B2` } },
      },
    ]);
    const warnings: string[] = [];
    const http = new OdataHttpClient({ serviceRoot: ROOT, label: 'odata connection "erp"', fetch: replay.fetch });
    const source = new OdataSource({ http, clock: { now: () => new Date('2026-03-01T10:00:00Z') }, delta: { warn: (m) => warnings.push(m) } });
    const watermark = WatermarkValue.initialize('string', `2026-02-28T00:00:00.000Z ${stale}`);
    const numbers: unknown[] = [];
    for await (const page of source.retrieveChanges(mapping, job, watermark)) {
      numbers.push(...page.messages.map((m) => m.fields.accountnumber));
      page.timeStamps.forEach((t) => watermark.advance(t.changeTracker));
    }
    replay.assertDone();
    expect(numbers).toEqual(['10000']);
    expect(warnings).toEqual(['job "erp-customers": the stored delta link is no longer valid; reading everything again (full resync)']);
    expect(watermark.value).toBe(`2026-03-01T10:00:00.000Z ${ROOT}Customers?$deltatoken=D9B0F7B2`);
  });
});
