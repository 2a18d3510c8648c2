import { pushContractHandler, pushHandler } from '../../../src/http/push-handler';
import type { HttpInput, HttpOutput } from '../../../src/http/http-types';
import { pushSignature } from '../../../src/push/push-auth';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/**
 * The push endpoint's handler (the very one both hosts route `hooks/{job}` to) on a real runtime:
 * SQLite databases, the local bus, Azurite tables. The job `crm-accounts` takes generic pushes.
 */
const SECRET = 'local-push-secret-0123456789';
const STATE = 'client-state-abc';

let fx: SyncFixture;

beforeEach(async () => {
  fx = await createSyncFixture({ env: { HOOK_SECRET: SECRET, HOOK_STATE: STATE } }, (config) => {
    const job = config.jobs.find((j) => j.name === 'crm-accounts') as Record<string, unknown>;
    job.push = { secret: 'HOOK_SECRET', clientState: 'HOOK_STATE' };
  });
});

afterEach(async () => {
  await fx.close();
});

const now = () => new Date().toISOString();

function notification(changes: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ sentAt: now(), clientState: STATE, changes, ...extra });
}

const account = (id: string, name: string, modifiedAt: string, city = ' Berlin ') => ({ action: 'upsert', record: { id, name, city, modified_at: modifiedAt } });

function post(body: string, headers: Record<string, string> = { 'x-highwater-key': SECRET }, job = 'crm-accounts'): Promise<HttpOutput> {
  const input: HttpInput = { method: 'POST', params: { job }, query: new URLSearchParams(), body, headers };
  return pushHandler(fx.runtime, input, { hostAuthenticated: false });
}

async function queued(): Promise<number> {
  return (await fx.runtime.bus.counts(fx.settings.queues.work.high)).active;
}

const customers = () => fx.erp.prepare('SELECT crm_id, name, city, modified_at FROM customers ORDER BY crm_id').all();
const errorOf = (out: HttpOutput) => (out.body as { error: { code: string; message: string } }).error;

describe('POST /api/hooks/{job}', () => {
  it('answers 202 once the change is on the bus; the processor applies it; the watermark does not move', async () => {
    const out = await post(notification([account('A-1', 'Acme', '2026-12-06T08:00:00.000Z')]));
    expect(out.status).toBe(202);
    expect(out.body).toMatchObject({ accepted: true, job: 'crm-accounts', queue: 'sbqhigh', sent: 1 });
    expect(await queued()).toBe(1);
    await fx.drain();
    expect(customers()).toEqual([{ crm_id: 'A-1', name: 'ACME', city: 'Berlin', modified_at: '2026-12-06T08:00:00.000Z' }]);
    expect((await fx.runtime.watermarks.getWatermarkByJobName('crm-accounts')).watermark).toBeNull();
  });

  it('takes an HMAC signature of the body instead of the key, and deletes by key', async () => {
    const body = notification([account('A-2', 'Beta', '2026-12-06T08:00:00.000Z')]);
    expect((await post(body, { 'x-highwater-signature': pushSignature(body, SECRET) })).status).toBe(202);
    await fx.drain();
    const del = notification([{ action: 'delete', record: { id: 'A-2' } }]);
    expect((await post(del, { 'x-highwater-signature': pushSignature(del, SECRET).toUpperCase().replace('SHA256=', 'sha256=') })).status).toBe(202);
    await fx.drain();
    expect(customers()).toEqual([]);
  });

  describe('refuses bad notifications with a clear 4xx and changes nothing', () => {
    const good = () => notification([account('A-3', 'Gamma', '2026-12-06T08:00:00.000Z')]);
    it.each([
      ['a wrong secret', () => post(good(), { 'x-highwater-key': 'guess' }), 401, 'Unauthorized', "x-highwater-key: does not match the job's push.secret"],
      ['no secret', () => post(good(), {}), 401, 'Unauthorized', 'missing x-highwater-key or x-highwater-signature header (or code parameter)'],
      ['a signature of another body', () => post(good(), { 'x-highwater-signature': pushSignature('{}', SECRET) }), 401, 'Unauthorized', "x-highwater-signature: not the HMAC-SHA256 of the body with the job's push.secret"],
      ['a wrong clientState', () => post(notification([account('A-3', 'G', now())], { clientState: 'other' })), 401, 'Unauthorized', "$.clientState: does not match the job's push.clientState"],
      ['malformed JSON', () => post('{"sentAt": "2026-'), 400, 'BadNotification', 'body: not JSON (Unterminated string in JSON at position 17)'],
      ['an unknown job', () => post(good(), undefined, 'nope'), 404, 'JobNotFound', 'unknown job "nope"'],
      ['a job without push', () => post(good(), undefined, 'crm-contacts'), 404, 'PushNotEnabled', 'job "crm-contacts" takes no pushes (no push block in its configuration)'],
      ['a 5 MB body', () => post(`{"sentAt":"${now()}","pad":"${'x'.repeat(5 * 1024 * 1024)}"}`), 413, 'PayloadTooLarge', 'body: over 1048576 bytes'],
      [
        'a replayed old notification',
        () => post(JSON.stringify({ sentAt: '2026-01-01T00:00:00Z', clientState: STATE, changes: [account('A-3', 'G', '2026-01-01T00:00:00Z')] })),
        400,
        'NotificationExpired',
        '$.sentAt: sent at 2026-01-01T00:00:00.000Z, over 600 s ago (push.maxAgeSeconds): refused as a replay',
      ],
      ['a missing mapped field', () => post(notification([{ record: { id: 'A-3', modified_at: now(), city: 'x' } }])), 400, 'BadNotification', '$.changes[0].record.name: missing (mapped by mapping "account-to-customer")'],
      ['a missing sentAt', () => post(JSON.stringify({ clientState: STATE, changes: [] })), 400, 'BadNotification', '$.sentAt: expected an ISO 8601 date-time'],
      ['a wrong action', () => post(notification([{ action: 'merge', record: {} }])), 400, 'BadNotification', '$.changes[0].action: expected "upsert" or "delete", got "merge"'],
      ['a null key', () => post(notification([{ action: 'delete', record: { id: null } }])), 400, 'BadNotification', '$.changes[0].record.id: source key must not be null or empty'],
      ['a change tracker that is no datetime', () => post(notification([account('A-3', 'G', 'yesterday')])), 400, 'BadNotification', expect.stringMatching(/^change 0: .*yesterday/)],
    ])('%s', async (_what, send, status, code, message) => {
      const out = await send();
      expect(out.status).toBe(status);
      expect(errorOf(out)).toEqual({ code, message });
      expect(JSON.stringify(out.body)).not.toContain(SECRET);
      expect(await queued()).toBe(0);
      expect((await fx.runtime.watermarks.getAllWatermarks()).size).toBe(0);
    });
  });

  it('collapses a storm: the same notification 20 times is one message; 5 changes of one record apply the newest', async () => {
    const body = notification([account('A-4', 'Delta', '2026-12-06T08:00:00.000Z')]);
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(body)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(202));
    expect(await queued()).toBe(1);
    await fx.drain();
    for (let i = 1; i <= 5; i++) expect((await post(notification([account('A-4', `Delta ${i}`, `2026-12-06T08:00:0${i}.000Z`)]))).status).toBe(202);
    const results = await fx.drain();
    expect(customers()).toEqual([{ crm_id: 'A-4', name: 'DELTA 5', city: 'Berlin', modified_at: '2026-12-06T08:00:05.000Z' }]);
    expect(results.filter((r) => r.jobName === 'crm-accounts' && r.outcome === 'Success')).toHaveLength(1);
  });

  it('"too many changes" sends nothing and makes the job due for a normal poll', async () => {
    await fx.runtime.watermarks.updateWatermarkByJobName('crm-accounts', '2026-12-06T07:00:00.0000000Z', new Date());
    expect((await fx.runtime.jobs.getJobsToRun(new Date())).map((j) => j.name)).not.toContain('crm-accounts');
    const out = await post(JSON.stringify({ sentAt: now(), clientState: STATE, tooManyChanges: true }));
    expect(out.status).toBe(202);
    expect(out.body).toMatchObject({ sent: 0, pollRequested: 'the notification says tooManyChanges' });
    expect((await fx.runtime.jobs.getJobsToRun(new Date())).map((j) => j.name)).toContain('crm-accounts');
    expect((await fx.runtime.watermarks.getWatermarkByJobName('crm-accounts')).watermark).toBe('2026-12-06T07:00:00.0000000Z');
  });
});

describe('push and poll together', () => {
  // An hour ago: a poll reads only changes behind the source's settled horizon.
  const BASE = Date.now() - 3_600_000;
  const at = (seconds: number) => new Date(BASE + seconds * 1000).toISOString();
  const tracker = (seconds: number) => at(seconds).replace('Z', '0000Z');
  const insert = (id: string, name: string, at: string) =>
    fx.crm.prepare('INSERT INTO accounts (id, name, city, modified_at) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET name = excluded.name, modified_at = excluded.modified_at').run(id, name, ' Berlin ', at);
  const runPoll = async () => {
    const job = fx.runtime.init.findJob('crm-accounts')!;
    return fx.runtime.detection.runJob(job, { trigger: 'manual' });
  };

  it('the same change pushed and polled arrives once: the polled copy has the same message id and the bus drops it', async () => {
    insert('A-5', 'Echo', at(0));
    await fx.runtime.init.ensureInitialized();
    expect((await post(notification([account('A-5', 'Echo', at(0))]))).status).toBe(202);
    const run = await runPoll();
    expect(run.outcome).toBe('Succeeded');
    expect(run.detected).toBe(1);
    expect(await queued()).toBe(1);
    const results = await fx.drain();
    expect(results.filter((r) => r.jobName === 'crm-accounts' && r.outcome === 'Success')).toHaveLength(1);
    expect(customers()).toEqual([{ crm_id: 'A-5', name: 'ECHO', city: 'Berlin', modified_at: at(0) }]);
    // The poll moved the watermark, the push never does.
    expect((await fx.runtime.watermarks.getWatermarkByJobName('crm-accounts')).watermark).toBe(tracker(0));
  });

  it('an older pushed copy arriving after a newer polled change does not overwrite it (it is ignored as outdated)', async () => {
    insert('A-6', 'Foxtrot new', at(10));
    await fx.runtime.init.ensureInitialized();
    await runPoll();
    await fx.drain();
    expect(customers()).toEqual([{ crm_id: 'A-6', name: 'FOXTROT NEW', city: 'Berlin', modified_at: at(10) }]);
    expect((await post(notification([account('A-6', 'Foxtrot old', at(5))]))).status).toBe(202);
    const results = await fx.drain();
    expect(results.filter((r) => r.jobName === 'crm-accounts').map((r) => r.outcome)).toEqual(['Ignored']);
    expect(customers()).toEqual([{ crm_id: 'A-6', name: 'FOXTROT NEW', city: 'Berlin', modified_at: at(10) }]);
    expect((await fx.runtime.bus.counts(fx.settings.queues.ignored)).active).toBe(1);
    expect((await fx.runtime.watermarks.getWatermarkByJobName('crm-accounts')).watermark).toBe(tracker(10));
  });
});

describe('GET /api/hooks/{job}', () => {
  it('answers the contract: each parameter with its JSON path and when it is required', async () => {
    const out = await pushContractHandler(fx.runtime, { method: 'GET', params: { job: 'crm-accounts' }, query: new URLSearchParams(), body: '', headers: {} }, { hostAuthenticated: false });
    expect(out.status).toBe(200);
    expect(out.body).toMatchObject({ job: 'crm-accounts', format: 'generic', method: 'POST', route: '/api/hooks/crm-accounts', maxBodyBytes: 1048576, maxAgeSeconds: 600 });
    const parameters = (out.body as { parameters: Array<{ path: string; required: string }> }).parameters.map((p) => `${p.path} ${p.required}`);
    expect(parameters).toEqual([
      '$.sentAt always',
      '$.clientState always',
      '$.tooManyChanges no',
      '$.changes always',
      '$.changes[*].action no',
      '$.changes[*].record.id always',
      '$.changes[*].record.modified_at upsert',
      '$.changes[*].record.name upsert',
      '$.changes[*].record.city upsert',
    ]);
    expect(JSON.stringify(out.body)).not.toContain(SECRET);
    const none = await pushContractHandler(fx.runtime, { method: 'GET', params: { job: 'nope' }, query: new URLSearchParams(), body: '', headers: {} }, { hostAuthenticated: false });
    expect(none.status).toBe(404);
  });
});
