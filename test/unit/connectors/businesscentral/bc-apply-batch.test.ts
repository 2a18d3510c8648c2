import type { ConnectorContext } from '../../../../connectors/base/connector-context';
import { ConnectorRegistry } from '../../../../connectors/base/registry';
import { createBusinessCentralConnectorFactory } from '../../../../connectors/businesscentral';
import type { FetchLike } from '../../../../connectors/odata/odata-http';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage } from '../../../../src/model/queue-message';
import { shown } from '../../../integration/connectors/odata/batch-test-kit';

const TENANT = '11111111-2222-3333-4444-555555555555';
const COMPANY = '5d115c9c-44e3-ea11-bb43-000d3a2feca1';
const ROOT = `https://api.businesscentral.dynamics.com/v2.0/${TENANT}/production/api/v2.0/companies(${COMPANY})/`;
const toCustomers: Mapping = {
  name: 'to-customers', source: { entity: 'accounts', key: ['accountid'] }, target: { entity: 'customers', key: ['number'] },
  fields: [{ target: 'number', source: 'accountnumber' }, { target: 'displayName', source: 'name' }],
};
const job: Job = {
  name: 'j', order: 1, schedule: '0 * * * * *', enabled: true, source: 'crm', target: 'erp', mapping: 'to-customers', priority: 'normal',
  watermark: { type: 'datetime', field: 'modifiedon' }, filter: [], action: JobActionType.NewUpdate, skipOutdatedMessages: false, skipUnchanged: false, pageSize: 100, lookbackSeconds: 0,
};
const msg = (number: string, displayName: string) =>
  createQueueMessage({ jobName: 'j', action: JobActionType.NewUpdate, sourceKey: number, targetKey: { number }, changeTracker: '2026-02-01T00:00:00Z', fields: { number, displayName } });

type BatchRequest = { id: string; method: string; url: string; headers: Record<string, string>; body?: Record<string, unknown> };
type Answer = { status: number; headers?: Record<string, string>; body?: unknown };

/**
 * A Business Central API stand-in for `$batch`: it answers JSON batches as BC does (`responses[]`
 * with `id`, `status`, `headers`, `body`; OData error bodies), through `answer` per operation.
 */
/**
 * How the stand-in writes the `$batch` answer from the operations' answers. Default: every
 * request answered, with its `id`, status 200.
 */
type Shape = (requests: BatchRequest[], answers: Answer[]) => { status: number; responses: Array<Record<string, unknown>> };
const answerAll: Shape = (requests, answers) => ({ status: 200, responses: requests.map((r, i) => ({ id: r.id, ...answers[i] })) });

function fakeBc(answer: (request: BatchRequest) => Answer, maxConcurrency = 16, shape: Shape = answerAll) {
  const batches: BatchRequest[][] = [];
  const state = { inFlight: 0, maxInFlight: 0, throttle: false };
  const fetch: FetchLike = async (url, init) => {
    expect(url).toBe(`${ROOT}$batch`);
    const headers = init.headers as Record<string, string>;
    expect(headers.Isolation).toBeUndefined();
    if (state.throttle) {
      return new Response(JSON.stringify({ error: { code: 'Application_TooManyRequests', message: 'Too many requests reached.' } }), { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '30' } });
    }
    state.maxInFlight = Math.max(state.maxInFlight, ++state.inFlight);
    await new Promise((r) => setTimeout(r, 5));
    state.inFlight--;
    const { requests } = JSON.parse(String(init.body)) as { requests: BatchRequest[] };
    batches.push(requests);
    const answers = requests.map((r) => ({ headers: { 'content-type': 'application/json; odata.metadata=minimal', 'odata-version': '4.0' }, ...answer(r) }));
    const { status, responses } = shape(requests, answers);
    return new Response(JSON.stringify({ responses }), { status, headers: { 'content-type': 'application/json; odata.metadata=minimal' } });
  };
  const registry = new ConnectorRegistry([createBusinessCentralConnectorFactory({ fetch, tokens: () => ({ getToken: async () => 't' }) })]);
  const ctx: ConnectorContext = {
    connection: { name: 'erp', type: 'businesscentral', settings: { tenantId: TENANT, company: COMPANY, auth: { kind: 'managedIdentity' } }, secrets: {}, maxConcurrency },
    resolveSecret: () => undefined,
    configDir: __dirname,
  };
  return { batches, state, target: () => registry.createTarget(ctx) };
}

const existing = { id: '9f1a2b3c-0000-0000-0000-000000000001', number: 'C-1', '@odata.etag': 'W/"JzE5OzE2NjIzMDk1NTAxOzAwOyc="' };

describe('Business Central applyBatch (JSON $batch, independent operations)', () => {
  it('reads then writes a group in two requests; one status per operation, a bad record fails alone', async () => {
    const bc = fakeBc((r) => {
      if (r.method === 'GET') return { status: 200, body: { value: r.url.includes("'C-1'") ? [existing] : [] } };
      if (r.method === 'PATCH') return { status: 200, body: { ...existing, displayName: r.body?.displayName } };
      if (r.body?.number === 'C-3') return { status: 400, body: { error: { code: 'BadRequest_InvalidToken', message: "Invalid token 'displayName'." } } };
      return { status: 201, body: { id: '9f1a2b3c-0000-0000-0000-000000000002', ...r.body } };
    });
    const outcomes = await bc.target().applyBatch({ job, mapping: toCustomers, action: JobActionType.NewUpdate, messages: [msg('C-1', 'Adatum'), msg('C-2', 'Trey'), msg('C-3', 'x')] });
    expect(shown(outcomes)).toEqual([{ status: 'applied' }, { status: 'applied' }, { status: 'failed', error: 'PermanentError 400' }]);
    expect(bc.batches.map((b) => b.map((r) => `${r.method} ${decodeURIComponent(r.url).split('?')[0]}`))).toEqual([
      ['GET customers', 'GET customers', 'GET customers'],
      [`PATCH customers(${existing.id})`, 'POST customers', 'POST customers'],
    ]);
    expect(bc.batches[1][0].headers['if-match']).toBe(existing['@odata.etag']);
  });

  it('sends at most 100 operations per $batch and at most 5 requests at once', async () => {
    const bc = fakeBc((r) => (r.method === 'GET' ? { status: 200, body: { value: [] } } : { status: 201, body: r.body }), 16);
    const messages = Array.from({ length: 750 }, (_, i) => msg(`C-${i}`, `n${i}`));
    const outcomes = await bc.target().applyBatch({ job, mapping: toCustomers, action: JobActionType.NewUpdate, messages });
    expect(outcomes.every((o) => o.status === 'applied')).toBe(true);
    expect(bc.batches).toHaveLength(16);
    expect(Math.max(...bc.batches.map((b) => b.length))).toBe(100);
    expect(bc.state.maxInFlight).toBe(5);
  });

  it('rejects the whole group on a 429 for the batch, keeping Retry-After', async () => {
    const bc = fakeBc(() => ({ status: 500 }));
    bc.state.throttle = true;
    await expect(bc.target().applyBatch({ job, mapping: toCustomers, action: JobActionType.NewUpdate, messages: [msg('C-1', 'a')] }))
      .rejects.toMatchObject({ name: 'TransientError', retryAfterMs: 30_000 });
  });
});

describe('Business Central applyBatch: answers as Business Central writes them', () => {
  // Business Central's answer to an invalid option value, as its documentation of $batch shows it.
  const invalidType = { error: { code: 'Unknown', message: "'Invalid Type' is not an option. The existing options are: Inventory,Service,Non-Inventory  CorrelationId:  x." } };
  const answer = (r: BatchRequest): Answer => {
    if (r.method === 'GET') return { status: 200, body: { value: [] } };
    if (r.body?.number === 'C-2') return { status: 400, body: invalidType };
    return { status: 201, body: { id: '9f1a2b3c-0000-0000-0000-000000000002', ...r.body } };
  };
  const messages = () => [msg('C-1', 'Adatum'), msg('C-2', 'Trey'), msg('C-3', 'Fabrikam')];
  const apply = (bc: ReturnType<typeof fakeBc>) => bc.target().applyBatch({ job, mapping: toCustomers, action: JobActionType.NewUpdate, messages: messages() });

  it('matches answers whose "id" is null by their position, so a real 400 is dead-lettered and the others applied', async () => {
    const bc = fakeBc(answer, 16, (requests, answers) => ({ status: 200, responses: requests.map((_, i) => ({ id: null, ...answers[i] })) }));
    const outcomes = await apply(bc);
    expect(shown(outcomes)).toEqual([{ status: 'applied' }, { status: 'failed', error: 'PermanentError 400' }, { status: 'applied' }]);
    expect((outcomes[1] as { error: Error }).error.message).toBe(
      `businesscentral connection "erp": create in customers: the service rejected the request (POST 400): ${invalidType.error.message} [Unknown]`,
    );
  });

  it('matches by id where there is one and by position where it is null, in any order', async () => {
    const bc = fakeBc(answer, 16, (requests, answers) => ({
      status: 200,
      responses: [{ id: requests[2].id, ...answers[2] }, { id: null, ...answers[0] }, { id: null, ...answers[1] }],
    }));
    expect(shown(await apply(bc))).toEqual([{ status: 'applied' }, { status: 'failed', error: 'PermanentError 400' }, { status: 'applied' }]);
  });

  it('retries the operations after the one the service stopped at (no continue-on-error applied: answers up to the failure)', async () => {
    const upToFailure: Shape = (requests, answers) => {
      const failed = answers.findIndex((a) => a.status >= 400);
      const until = failed < 0 ? answers.length : failed + 1;
      return { status: 200, responses: answers.slice(0, until).map((a) => ({ id: null, ...a })) };
    };
    const outcomes = await apply(fakeBc(answer, 16, upToFailure));
    expect(shown(outcomes)).toEqual([{ status: 'applied' }, { status: 'failed', error: 'PermanentError 400' }, { status: 'failed', error: 'TransientError' }]);
    expect((outcomes[2] as { error: Error }).error.message).toBe('businesscentral connection "erp": create in customers ($batch): not run: the service stopped at an earlier request that failed');
  });

  it('reads a $batch answered with the failed request\'s status the same way (JSON batch)', async () => {
    const firstFails = (r: BatchRequest): Answer => (r.method === 'GET' ? answer(r) : r.body?.number === 'C-1' ? { status: 400, body: invalidType } : answer(r));
    const outcomes = await apply(fakeBc(firstFails, 16, (requests, answers) => {
      const failed = answers.findIndex((a) => a.status >= 400);
      return failed < 0 ? answerAll(requests, answers) : { status: answers[failed].status, responses: [{ id: requests[failed].id, ...answers[failed] }] };
    }));
    expect(shown(outcomes)).toEqual([{ status: 'failed', error: 'PermanentError 400' }, { status: 'failed', error: 'TransientError' }, { status: 'failed', error: 'TransientError' }]);
  });
});

describe('Business Central applyBatch: a record deleted between its read and its write', () => {
  it('creates it again (404 on the PATCH with If-Match is not a missing dependency), and a delete of it is done', async () => {
    let deleted = false;
    const bc = fakeBc((r) => {
      if (r.method === 'GET') return { status: 200, body: { value: deleted ? [] : [existing] } };
      if (r.method === 'PATCH' || r.method === 'DELETE') {
        // Someone deleted the customer after it was read: Business Central's answer for a record that is not there.
        deleted = true;
        return { status: 404, body: { error: { code: 'Internal_RecordNotFound', message: `The Customer does not exist. Identification fields and values: Id='{${existing.id.toUpperCase()}}'  CorrelationId:  x.` } } };
      }
      return { status: 201, body: { id: '9f1a2b3c-0000-0000-0000-000000000009', ...r.body } };
    });
    const outcomes = await bc.target().applyBatch({ job, mapping: toCustomers, action: JobActionType.NewUpdate, messages: [msg('C-1', 'Adatum again')] });
    expect(outcomes).toEqual([{ status: 'applied' }]);
    expect(bc.batches.map((b) => b.map((r) => `${r.method} ${decodeURIComponent(r.url).split('?')[0]}`))).toEqual([
      ['GET customers'], [`PATCH customers(${existing.id})`], ['GET customers'], ['POST customers'],
    ]);
    expect(bc.batches[3][0].body).toEqual({ number: 'C-1', displayName: 'Adatum again' });

    deleted = false;
    const del = createQueueMessage({ jobName: 'j', action: JobActionType.Delete, sourceKey: 'C-1', targetKey: { number: 'C-1' }, changeTracker: '2026-02-01T00:00:00Z', fields: { number: 'C-1' } });
    expect(await bc.target().applyBatch({ job: { ...job, action: JobActionType.Delete }, mapping: toCustomers, action: JobActionType.Delete, messages: [del] })).toEqual([{ status: 'applied' }]);
  });
});
