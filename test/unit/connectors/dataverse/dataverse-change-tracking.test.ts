import type { SourceConnector, SourcePage } from '../../../../connectors/base/source-connector';
import type { Job } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { accountsMapping as mapping, openDataverse, recording, trackingJob as job } from './dataverse-test-kit';
import { accountDefinitions } from './column-definitions';

const LINK_1 = 'https://contoso.crm4.dynamics.com/api/data/v9.2/accounts?$select=accountid,name,accountnumber&$deltatoken=919042%2108%2f22%2f2017%2008%3a10%3a44';
const LINK_2 = 'https://contoso.crm4.dynamics.com/api/data/v9.2/accounts?$select=accountid,name,accountnumber&$deltatoken=919058%2108%2f22%2f2017%2008%3a21%3a20';

/** Reads a run and advances the watermark as detection does (messages, then timestamp-only changes). */
async function run(source: SourceConnector, m: Mapping, j: Job, watermark: WatermarkValue) {
  const pages: SourcePage[] = [];
  for await (const page of source.retrieveChanges(m, j, watermark)) {
    pages.push(page);
    for (const stamp of page.timeStamps) watermark.advance(stamp.changeTracker);
    for (const message of page.messages) watermark.advance(message.changeTracker);
  }
  return { pages, messages: pages.flatMap((p) => p.messages) };
}

describe('Dataverse change tracking (recorded Web API exchanges)', () => {
  it('reads the whole table first, across pages, and stores the delta link as the watermark', async () => {
    const dv = openDataverse([accountDefinitions(), ...recording('change-tracking-initial')]);
    const watermark = WatermarkValue.initialize('string', null);
    const { pages, messages } = await run(dv.source(), mapping, job, watermark);
    dv.replay.assertDone();
    expect(pages.map((p) => [p.rowCount, p.hasMore, p.timeStamps.length])).toEqual([[2, true, 0], [1, false, 1]]);
    expect(messages.map((m) => [m.action, m.sourceKey, m.fields.number, m.changeTracker])).toEqual([
      ['NewUpdate', '60c4e274-0d87-e711-80e5-00155db19e6d', 'A-1', '2026-03-01T10:00:00.000Z'],
      ['NewUpdate', '2e451703-c686-e711-80e5-00155db19e6d', 'A-2', '2026-03-01T10:00:00.000Z'],
      ['NewUpdate', 'a59c24d8-29f4-e611-80de-00155db19e6d', 'A-3', '2026-03-01T10:00:00.000Z'],
    ]);
    expect(watermark.value).toBe(`2026-03-01T10:00:00.000Z ${LINK_1}`);
  });

  it('turns changes since the stored link into messages, $deletedEntity into Delete, and replaces the link each run', async () => {
    const dv = openDataverse([accountDefinitions(), ...recording('change-tracking-delta')]);
    // The clock has not moved since the stored stamp: the new stamp still sorts after it.
    const watermark = WatermarkValue.initialize('string', `2026-03-01T10:00:00.000Z ${LINK_1}`);
    const source = dv.source();
    const { messages } = await run(source, mapping, job, watermark);
    expect(messages.map((m) => [m.action, m.sourceKey, m.targetKey, m.fields])).toEqual([
      ['NewUpdate', '60c4e274-0d87-e711-80e5-00155db19e6d', { crm_id: '60c4e274-0d87-e711-80e5-00155db19e6d' },
        { crm_id: '60c4e274-0d87-e711-80e5-00155db19e6d', name: 'Monte Orton Ltd', number: 'A-1' }],
      ['Delete', '2e451703-c686-e711-80e5-00155db19e6d', { crm_id: '2e451703-c686-e711-80e5-00155db19e6d' },
        { crm_id: '2e451703-c686-e711-80e5-00155db19e6d', name: null, number: null }],
    ]);
    expect(watermark.value).toBe(`2026-03-01T10:00:00.001Z ${LINK_2}`);
    const quiet = await run(source, mapping, job, watermark);
    expect(quiet.messages).toEqual([]);
    expect(watermark.value).toMatch(/^2026-03-01T10:00:00\.002Z https:.*\$deltatoken=919061%2108%2f22%2f2017%2009%3a00%3a00$/);
    dv.replay.assertDone();
  });

  it('reads whole the changed records that lack a mapped column, instead of failing the run, and the link advances', async () => {
    const dv = openDataverse([accountDefinitions(), ...recording('change-tracking-partial')]);
    const watermark = WatermarkValue.initialize('string', `2026-03-01T10:00:00.000Z ${LINK_1}`);
    const { messages } = await run(dv.source(), mapping, job, watermark);
    dv.replay.assertDone();
    // The column's value as it is now (null here), not a guess; the record deleted meanwhile is left to its removal.
    expect(messages.map((m) => [m.action, m.sourceKey, m.fields])).toEqual([
      ['NewUpdate', '60c4e274-0d87-e711-80e5-00155db19e6d', { crm_id: '60c4e274-0d87-e711-80e5-00155db19e6d', name: 'Monte Orton', number: null }],
      ['Delete', '2e451703-c686-e711-80e5-00155db19e6d', { crm_id: '2e451703-c686-e711-80e5-00155db19e6d', name: null, number: null }],
    ]);
    expect(watermark.value).toBe(`2026-03-01T10:00:00.001Z ${LINK_2}`);
  });

  it('still fails the run with a ConfigError when the record read whole lacks the column too (the mapping names a column the table does not have)', async () => {
    const exchanges = recording('change-tracking-partial');
    const whole = exchanges[1].response.body as { value: Array<Record<string, unknown>> };
    whole.value = [{ accountid: '60c4e274-0d87-e711-80e5-00155db19e6d', name: 'Monte Orton' }];
    const dv = openDataverse([accountDefinitions(), ...exchanges]);
    const watermark = WatermarkValue.initialize('string', `2026-03-01T10:00:00.000Z ${LINK_1}`);
    await expect(run(dv.source(), mapping, job, watermark)).rejects.toMatchObject({
      name: 'ConfigError',
      message: 'mapping "accounts": field "number": source field "accountnumber" is not in the accounts record',
    });
    expect(watermark.value).toBe(`2026-03-01T10:00:00.000Z ${LINK_1}`);
  });

  it('starts a full resync, logged, when the stored link has expired', async () => {
    const dv = openDataverse([accountDefinitions(), ...recording('change-tracking-expired')], {}, '2026-03-09T08:00:00.000Z');
    const watermark = WatermarkValue.initialize('string', `2026-03-01T10:00:00.000Z ${LINK_1}`);
    const { messages } = await run(dv.source(), mapping, job, watermark);
    dv.replay.assertDone();
    expect(dv.warnings).toEqual(['job "crm-accounts": the stored delta link is no longer valid; reading everything again (full resync)']);
    expect(messages.map((m) => [m.action, m.fields.number])).toEqual([['NewUpdate', 'A-1']]);
    expect(watermark.value).toMatch(/^2026-03-09T08:00:00\.000Z https:.*\$deltatoken=920001/);
  });

  it('applies the job filter to tracked records (Dataverse refuses $filter with change tracking)', async () => {
    const dv = openDataverse([accountDefinitions(), ...recording('change-tracking-delta').slice(0, 1)]);
    const filtered = { ...job, filter: [{ field: 'accountnumber', op: 'ne' as const, value: 'A-1' }] };
    const { messages } = await run(dv.source(), mapping, filtered, WatermarkValue.initialize('string', `2026-03-01T10:00:00.000Z ${LINK_1}`));
    expect(messages.map((m) => m.action)).toEqual(['Delete']);
    expect(dv.replay.sent[1].url).not.toContain('$filter');
  });

  it('refuses a change-tracking job whose watermark type is not string', async () => {
    const dv = openDataverse([]);
    await expect(run(dv.source(), mapping, { ...job, watermark: { type: 'datetime', field: '@odata.deltaLink' } }, WatermarkValue.initialize('datetime', null)))
      .rejects.toThrow('job "crm-accounts": watermark field @odata.deltaLink (change tracking) needs watermark type string, got "datetime"');
  });
});
