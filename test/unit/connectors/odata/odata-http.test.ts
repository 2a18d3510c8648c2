import { CachedTokenProvider, ConcurrencyLimit, identityTokenProvider, OdataHttpClient } from '../../../../connectors/odata';
import type { FetchLike } from '../../../../connectors/odata';

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('OdataHttpClient', () => {
  it('keeps to the concurrency limit', async () => {
    let active = 0;
    let most = 0;
    const fetch: FetchLike = async () => {
      most = Math.max(most, ++active);
      await new Promise((r) => setImmediate(r));
      active--;
      return json({ value: [] });
    };
    const http = new OdataHttpClient({ serviceRoot: 'http://127.0.0.1:1/svc', label: 'c', fetch, maxConcurrency: 2 });
    await Promise.all(Array.from({ length: 7 }, (_, i) => http.request({ method: 'GET', url: `Books(${i})`, operation: 'read' })));
    expect(most).toBe(2);
  });

  it('resolves relative links against the context URL and sends the token', async () => {
    const seen: Array<[string, string | undefined]> = [];
    const fetch: FetchLike = async (url, init) => {
      seen.push([url, (init.headers as Record<string, string>).Authorization]);
      return json({ '@odata.context': '../$metadata#Books', value: [], '@odata.nextLink': 'Books?$skiptoken=3' });
    };
    const http = new OdataHttpClient({ serviceRoot: 'http://127.0.0.1:1/odata/v4/svc', label: 'c', fetch, tokens: { getToken: async () => 'tok' } });
    const response = await http.request({ method: 'GET', url: 'Books(1)/author', operation: 'read' });
    expect(http.resolveLink('Books?$skiptoken=3', response)).toBe('http://127.0.0.1:1/odata/v4/svc/Books?$skiptoken=3');
    expect(seen).toEqual([['http://127.0.0.1:1/odata/v4/svc/Books(1)/author', 'Bearer tok']]);
  });

  it('retries throttled reads with backoff when there is no Retry-After, and never beyond maxRetryWaitMs', async () => {
    const sleeps: number[] = [];
    let calls = 0;
    const fetch: FetchLike = async () => (++calls <= 2 ? json({ error: { message: 'busy' } }, 503) : json({ value: [] }));
    const http = new OdataHttpClient({ serviceRoot: 'http://127.0.0.1:1/', label: 'c', fetch, clock: { now: () => new Date(), sleep: async (ms) => void sleeps.push(ms) } });
    await http.request({ method: 'GET', url: 'Books', operation: 'read', retryThrottled: true });
    expect(sleeps).toEqual([1000, 2000]);
    const long = new OdataHttpClient({
      serviceRoot: 'http://127.0.0.1:1/', label: 'c', maxRetryWaitMs: 10_000, clock: { now: () => new Date(), sleep: async (ms) => void sleeps.push(ms) },
      fetch: async () => json({ error: { message: 'later' } }, 429, { 'retry-after': '3600' }),
    });
    await expect(long.request({ method: 'GET', url: 'Books', operation: 'read', retryThrottled: true })).rejects.toMatchObject({ retryAfterMs: 3_600_000 });
    expect(sleeps).toEqual([1000, 2000]);
  });

  it('waits for Retry-After on any retryable answer of a read (a Business Central 502, as seconds or a date), and retries a 502 without it no sooner than the job', async () => {
    const sleeps: number[] = [];
    const now = new Date('2026-10-21T07:28:00Z');
    const answers = [
      json({ error: { code: 'BadGateway', message: 'Bad Gateway' } }, 502, { 'retry-after': '7' }),
      json({ error: { code: 'BadGateway', message: 'Bad Gateway' } }, 502, { 'retry-after': 'Wed, 21 Oct 2026 07:28:03 GMT' }),
      json({ value: [{ id: 1 }] }),
    ];
    const http = new OdataHttpClient({ serviceRoot: 'http://127.0.0.1:1/', label: 'c', fetch: async () => answers.shift()!, clock: { now: () => now, sleep: async (ms) => void sleeps.push(ms) } });
    const response = await http.request({ method: 'GET', url: 'customers', operation: 'read', retryThrottled: true });
    expect(response.body?.value).toEqual([{ id: 1 }]);
    expect(sleeps).toEqual([7000, 3000]);
    // Without the header a 502 is not waited for here: the read fails as transient, for the run to retry.
    const bare = new OdataHttpClient({ serviceRoot: 'http://127.0.0.1:1/', label: 'c', fetch: async () => json({ error: { message: 'Bad Gateway' } }, 502), clock: { now: () => now, sleep: async (ms) => void sleeps.push(ms) } });
    await expect(bare.request({ method: 'GET', url: 'customers', operation: 'read', retryThrottled: true })).rejects.toMatchObject({ name: 'TransientError', retryAfterMs: undefined });
    expect(sleeps).toEqual([7000, 3000]);
    // A write keeps the wait on its error, for the retry copy: a 502 with Retry-After included.
    const write = new OdataHttpClient({ serviceRoot: 'http://127.0.0.1:1/', label: 'c', fetch: async () => json({ error: { message: 'Bad Gateway' } }, 502, { 'retry-after': '12' }), clock: { now: () => now, sleep: async () => undefined } });
    await expect(write.request({ method: 'PATCH', url: 'customers(1)', body: {}, operation: 'update' })).rejects.toMatchObject({ name: 'TransientError', retryAfterMs: 12_000 });
  });
});

describe('CachedTokenProvider', () => {
  it('reuses a token until five minutes before expiry, sharing one request', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    let requests = 0;
    const tokens = new CachedTokenProvider(async () => ({ token: `t${++requests}`, expiresOnTimestamp: now + 60 * 60_000 }), { now: () => new Date(now) });
    expect(await Promise.all([tokens.getToken(), tokens.getToken()])).toEqual(['t1', 't1']);
    now += 54 * 60_000;
    expect(await tokens.getToken()).toBe('t1');
    now += 2 * 60_000;
    expect(await tokens.getToken()).toBe('t2');
  });
});

describe('ConcurrencyLimit', () => {
  it('hands a freed slot to the longest waiter', async () => {
    const limit = new ConcurrencyLimit(1);
    const order: number[] = [];
    let release!: () => void;
    const first = limit.run(() => new Promise<void>((r) => (release = r)).then(() => void order.push(1)));
    const second = limit.run(async () => void order.push(2));
    const third = limit.run(async () => void order.push(3));
    expect(limit.active).toBe(1);
    release();
    await Promise.all([first, second, third]);
    expect(order).toEqual([1, 2, 3]);
  });
});

describe('identityTokenProvider', () => {
  const base = { scope: 'https://contoso.crm4.dynamics.com/.default', connectionName: 'crm', redact: (t: string) => t.split('hunter2').join('***'), clock: { now: () => new Date() } };

  it('reports settings that make no credential as configuration errors, without reaching Entra ID', async () => {
    const insecure = identityTokenProvider({ ...base, auth: { kind: 'clientSecret', tenantId: 't', clientId: 'c', authorityHost: 'http://127.0.0.1:1' }, clientSecret: 'hunter2' });
    await expect(insecure.getToken()).rejects.toMatchObject({
      name: 'ConfigError',
      message: "connection \"crm\": get an access token for https://contoso.crm4.dynamics.com/.default: settings.auth does not make a credential: The authorityHost address must use the 'https' protocol.",
    });
    const noFile = identityTokenProvider({ ...base, auth: { kind: 'certificate', tenantId: 't', clientId: 'c', certificatePath: '/nonexistent/app.pem' } });
    await expect(noFile.getToken()).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringContaining('the certificate file cannot be read (ENOENT)'),
    });
  });
});
