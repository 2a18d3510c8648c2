import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage, type JsonValue, type QueueMessage } from '../../../../src/model/queue-message';
import { CLIENT_SECRET, openDataverse, recording, trackingJob } from './dataverse-test-kit';

const accounts: Mapping = {
  name: 'to-accounts',
  source: { entity: 'customers', key: ['no'] },
  target: { entity: 'accounts', key: ['accountnumber'], versionField: 'modifiedon' },
  fields: [
    { target: 'accountnumber', source: 'no' },
    { target: 'name', source: 'name' },
    { target: 'primarycontactid', source: 'contactEmail' },
    { target: 'ownerid@odata.bind', source: 'owner' },
  ],
};
const byId: Mapping = { ...accounts, target: { entity: 'accounts', key: ['accountid'] } };
const lookups = { accounts: { primarycontactid: { entitySet: 'contacts', key: 'emailaddress1' }, parentaccountid: { entitySet: 'accounts', key: 'accountnumber' } } };

function message(targetKey: Record<string, JsonValue>, fields: Record<string, JsonValue>, action: QueueMessage['action'] = JobActionType.NewUpdate): QueueMessage {
  return createQueueMessage({ jobName: 'j', action, sourceKey: 'k', targetKey, changeTracker: '1', fields: { ...targetKey, ...fields } });
}

describe('Dataverse target (recorded Web API exchanges)', () => {
  it('upserts on the alternate key with lookups bound, and batches upserts that queue while one is in flight', async () => {
    const dv = openDataverse(recording('batch-upserts'), { lookups });
    const target = dv.target();
    const results = await Promise.allSettled([
      target.upsert(message({ accountnumber: 'A-1' }, { name: 'Monte Orton', primarycontactid: 'ann@example.com', 'ownerid@odata.bind': '/systemusers(7d577253-3ef0-e311-b9e1-00155d5b2a0c)' }), accounts),
      target.upsert(message({ accountnumber: 'A-2' }, { name: 'Contoso' }), accounts),
      target.upsert(message({ accountnumber: 'A-3' }, { name: 'Fabrikam', parentaccountid: 'A-404' }), accounts),
    ]);
    dv.replay.assertDone();
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({
      name: 'TransitiveError',
      message: `dataverse connection "crm": upsert accounts(accountnumber='A-3'): a referenced record does not exist (yet) (PATCH 404): A record with the specified key values does not exist in account entity [0x80060891]`,
    });
  });

  it('returns generated fields, addresses a GUID key bare, and classifies errors without leaking secrets', async () => {
    const dv = openDataverse(recording('upserts'));
    const target = dv.target();
    const responseMapping = [{ from: 'accountid', to: 'crm_id' }];
    expect(await target.upsert(message({ accountnumber: 'A-7' }, { name: 'Adventure Works' }), { ...accounts, fields: accounts.fields.slice(0, 2) }, { responseMapping }))
      .toEqual({ returned: { accountid: '8c0c3b61-2ff0-f011-8544-000d3a4a1b2c' } });
    await target.upsert(message({ accountid: '8c0c3b61-2ff0-f011-8544-000d3a4a1b2c' }, { name: 'Adventure Works Cycles' }), byId);
    const upsert = (no: string) => target.upsert(message({ accountnumber: no }, { name: 'x' }), accounts);
    await expect(upsert('A-8')).rejects.toMatchObject({
      name: 'TransientError',
      retryAfterMs: 37_000,
      message: `dataverse connection "crm": upsert accounts(accountnumber='A-8'): throttled by the service (retry after Retry-After) (PATCH 429): Number of requests exceeded the limit of 6000 over time window of 300 seconds. [0x80072322]`,
    });
    await expect(upsert('A-9')).rejects.toMatchObject({ name: 'ConfigError', message: expect.stringContaining('access denied: the identity lacks a permission (PATCH 403): Principal user') });
    await expect(upsert('A-10')).rejects.toMatchObject({
      name: 'ConfigError',
      message: `dataverse connection "crm": upsert accounts(accountnumber='A-10'): authentication failed: check settings.auth and its secret (PATCH 401)`,
    });
    const invalid = upsert('A-11');
    await expect(invalid).rejects.toMatchObject({ name: 'PermanentError', message: expect.stringContaining("Cannot convert the literal '***' to the expected type") });
    await expect(invalid).rejects.not.toMatchObject({ message: expect.stringContaining(CLIENT_SECRET) });
    dv.replay.assertDone();
  });

  it('deletes (a missing record is fine), invokes bound and unbound actions, reads versions', async () => {
    const dv = openDataverse(recording('delete-actions-versions'));
    const target = dv.target();
    await target.delete(message({ accountnumber: 'A-1' }, {}, JobActionType.Delete), accounts);
    await target.delete(message({ accountnumber: 'A-1' }, {}, JobActionType.Delete), accounts);
    const job: Job = { ...trackingJob, action: JobActionType.InvokeAction, actionName: 'accounts/Microsoft.Dynamics.CRM.new_Recalculate' };
    await target.invokeAction({ ...message({ accountnumber: 'A-1' }, {}, JobActionType.InvokeAction), actionParameters: { accountnumber: 'A-1', Mode: 2 } }, job);
    const win = { Status: 3, OpportunityClose: { subject: 'Won', 'opportunityid@odata.bind': '/opportunities(b3828ac8-917a-e511-80d2-00155d2a68d2)' } };
    await target.invokeAction({ ...message({}, {}, JobActionType.InvokeAction), actionParameters: win }, { ...job, actionName: 'WinOpportunity' });
    expect(await target.getTargetVersion(message({ accountnumber: 'A-1' }, {}), accounts)).toBe('2026-02-27T08:15:02Z');
    expect(await target.getTargetVersion(message({ accountnumber: 'A-404' }, {}), accounts)).toBeNull();
    dv.replay.assertDone();
  });

  it('refuses a bare lookup value without a lookups entry', async () => {
    const dv = openDataverse([]);
    await expect(dv.target().upsert(message({ accountnumber: 'A-1' }, { 'ownerid@odata.bind': 'someone' }), accounts)).rejects.toThrow(
      'field "ownerid@odata.bind" of accounts: "someone" is not a reference such as /accounts(<id>); name the related table in settings.lookups.accounts.ownerid',
    );
  });
});
