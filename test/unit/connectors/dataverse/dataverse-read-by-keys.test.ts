import type { Job } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import type { RecordedExchange } from '../odata/replay-fetch';
import { accountDefinitions } from './column-definitions';
import { accountsMapping as mapping, API, openDataverse, trackingJob } from './dataverse-test-kit';

/**
 * `readByKeys` of the Dataverse source beyond the source contract (recorded Web API exchanges):
 * a watermark job's by-key read, text keys shaped like a GUID, and what a change-tracking job
 * does when the table cannot be filtered by key.
 */
const ID = '60c4e274-0d87-e711-80e5-00155db19e6d';
const SELECT = 'accountid,name,accountnumber';
const watermarkJob: Job = { ...trackingJob, watermark: { type: 'datetime', field: 'modifiedon' } };

const read = (url: string, prefer: string, value: unknown[]): RecordedExchange => ({
  request: { method: 'GET', url, headers: { prefer } },
  response: { status: 200, body: { '@odata.context': `${API}$metadata#accounts(${SELECT})`, value } },
});

describe('Dataverse source: reading records by key', () => {
  it('reads a watermark job\'s records with the tracker not null, as detection sends them', async () => {
    const dv = openDataverse([
      accountDefinitions(),
      read(`${API}accounts?$filter=(accountid eq ${ID}) and modifiedon ne null&$select=accountid,modifiedon,name,accountnumber`, 'odata.maxpagesize=1', [
        { '@odata.etag': 'W/"1"', accountid: ID, modifiedon: '2026-02-01T08:00:00Z', name: 'Monte Orton Ltd', accountnumber: 'A-1' },
      ]),
    ]);
    const found = await dv.source().readByKeys!(mapping, watermarkJob, [ID, 'not-a-guid']);
    dv.replay.assertDone();
    expect([...found.values()].map((m) => [m.action, m.sourceKey, m.changeTracker, m.fields])).toEqual([
      ['NewUpdate', ID, '2026-02-01T08:00:00.0000000Z', { crm_id: ID, name: 'Monte Orton Ltd', number: 'A-1' }],
    ]);
  });

  it('resolves a mapped field as detection does', async () => {
    const resolving: Mapping = { ...mapping, fields: [...mapping.fields, { target: 'owner', source: 'accountnumber', resolver: { entity: 'contacts', matchField: 'accountnumber', returnField: 'fullname' } }] };
    const dv = openDataverse([
      accountDefinitions(),
      read(`${API}accounts?$filter=accountid eq ${ID}&$select=${SELECT}`, 'odata.maxpagesize=1', [{ accountid: ID, name: 'Monte Orton Ltd', accountnumber: 'A-1' }]),
      {
        request: { method: 'GET', url: `${API}contacts?$filter=accountnumber eq 'A-1'&$select=fullname&$top=1` },
        response: { status: 200, body: { value: [{ fullname: 'Rene Valdes' }] } },
      },
    ]);
    const found = await dv.source().readByKeys!(resolving, trackingJob, [ID]);
    dv.replay.assertDone();
    expect(found.get(ID)?.fields).toEqual({ crm_id: ID, name: 'Monte Orton Ltd', number: 'A-1', owner: 'Rene Valdes' });
  });

  it('quotes a text key even when it looks like a GUID', async () => {
    const byNumber: Mapping = { ...mapping, source: { entity: 'accounts', key: ['accountnumber'] } };
    const dv = openDataverse([
      accountDefinitions(),
      read(`${API}accounts?$filter=accountnumber eq '${ID}'&$select=accountnumber,accountid,name`, 'odata.maxpagesize=1', [
        { accountid: ID, name: 'Monte Orton Ltd', accountnumber: ID },
      ]),
    ]);
    const found = await dv.source().readByKeys!(byNumber, trackingJob, [ID]);
    dv.replay.assertDone();
    expect([...found.keys()]).toEqual([ID]);
    // A change-tracking job: the stamp of the read (the connection's clock) is the tracker, as a run's.
    expect(found.get(ID)?.changeTracker).toBe('2026-03-01T10:00:00.000Z');
  });

  it('fails with a ConfigError naming why when a change-tracking job\'s table refuses $filter on its key', async () => {
    const dv = openDataverse([
      accountDefinitions(),
      {
        request: { method: 'GET', url: `${API}accounts?$filter=accountid eq ${ID}&$select=${SELECT}` },
        response: { status: 501, body: { error: { code: '0x8006088a', message: 'The query parameter $filter is not supported' } } },
      },
    ]);
    const reading = dv.source().readByKeys!(mapping, trackingJob, [ID]);
    await expect(reading).rejects.toMatchObject({ name: 'ConfigError' });
    await expect(reading).rejects.toThrow(/tracks changes by delta links, and accounts refused a \$filter on its key accountid \(HTTP 501/);
    dv.replay.assertDone();
  });

  it('fails with a TransientError when Dataverse cannot be reached', async () => {
    const dv = openDataverse([accountDefinitions()]);
    // Past the recorded exchanges the replay throws, as a refused connection does.
    const reading = dv.source().readByKeys!(mapping, trackingJob, [ID]);
    await expect(reading).rejects.toMatchObject({ name: 'TransientError' });
  });
});
