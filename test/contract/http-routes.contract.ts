import type { JobRunResult } from '../../src/detect/job-run';
import type { ExecuteJobServices } from '../../src/http/execute-job-handler';
import type { RunStatusRecord } from '../../src/http/run-status-store';
import { PushRejection } from '../../src/push/push-reading';
import type { PushService } from '../../src/push/push-service';

/** What the app's routes use of the runtime, scripted per case (see {@link HttpRoutesRuntime}). */
export interface HttpRoutesRuntime extends ExecuteJobServices {
  push: Pick<PushService, 'receive' | 'handshake' | 'contract'>;
  acceptedRuns: ExecuteJobServices['acceptedRuns'] & { status(id: string): Promise<RunStatusRecord | undefined> };
}

export interface HttpAnswer {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  text: string;
}

/** What a host's test hands to {@link runHttpRoutesContract}. */
export interface HttpHostFixture {
  /** The origin the host's own URLs start with (e.g. `http://localhost:7071`). */
  readonly origin: string;
  /** Whether the host authenticates callers itself (function keys), so a push needs no shared secret. */
  readonly authenticatesCallers: boolean;
  /** Sends a request to the app's route at `path` (below `/api/`, query included) on `runtime`. */
  request(runtime: HttpRoutesRuntime, request: { method: 'GET' | 'POST'; path: string; body?: string; headers?: Record<string, string> }): Promise<HttpAnswer>;
  close(): Promise<void>;
}

const job = { name: 'crm-accounts' };
const run: JobRunResult = {
  jobName: 'crm-accounts', trigger: 'manual', startedAt: new Date('2026-03-01T08:00:00Z'), endedAt: new Date('2026-03-01T08:00:02Z'), detected: 3,
  sentByQueue: { 'sbq-normal': 2 }, timeStamps: 1, watermarkBefore: '2026-02-28T00:00:00.0000000Z', watermarkAfter: '2026-03-01T07:59:00.0000000Z', outcome: 'Succeeded',
};
const runBody = {
  job: 'crm-accounts', outcome: 'Succeeded', detected: 3, sent: 2, sentByQueue: { 'sbq-normal': 2 }, timeStamps: 1,
  watermarkBefore: '2026-02-28T00:00:00.0000000Z', watermarkAfter: '2026-03-01T07:59:00.0000000Z', startedAt: '2026-03-01T08:00:00.000Z', endedAt: '2026-03-01T08:00:02.000Z',
};
const RUN_ID = '9998215412345-0a1b2c3d';

/** A runtime whose one job runs at once; `calls` records what the routes asked for. */
function scriptedRuntime(changes: { configFails?: string; accepted?: boolean; push?: () => Promise<unknown> } = {}) {
  const calls: string[] = [];
  const runtime: HttpRoutesRuntime = {
    init: {
      ensureInitialized: async () => {
        if (changes.configFails) throw new Error(changes.configFails);
        return undefined as never;
      },
      findJob: ((name: string) => (name === job.name ? job : undefined)) as HttpRoutesRuntime['init']['findJob'],
    },
    detection: { runJob: async (_job, options) => (calls.push(`runJob ${JSON.stringify(options)}`), run) },
    acceptedRuns: {
      heartbeatMs: 30_000,
      runOrAccept: async (_name, start) => (changes.accepted ? { finished: false, accepted: { id: RUN_ID, acceptedAt: new Date('2026-03-01T08:00:00Z') } } : { finished: true, run: await start() }),
      status: async (id) => (id === RUN_ID ? { id, job: 'crm-accounts', state: 'Succeeded', acceptedAt: run.startedAt, heartbeatAt: run.endedAt, endedAt: run.endedAt, result: runBody } : undefined),
    } as HttpRoutesRuntime['acceptedRuns'],
    push: {
      receive: async (name, request) => (calls.push(`push ${name} hostAuthenticated=${request.hostAuthenticated} body=${request.body}`), (await changes.push?.()) as never),
      handshake: async (_name, request) => request.query?.get('validationToken') ?? '',
      contract: async (name) => ({ job: name, parameters: [] }) as never,
    },
  };
  return { runtime, calls };
}

/**
 * The HTTP routes' contract: the app's handlers (src/http) answer alike whichever host serves
 * them — the local host's HTTP server and the Functions app's HTTP triggers. Status codes, JSON
 * and text bodies, headers, route parameters, query and body text cross each host unchanged, and
 * bad input is a 400 that says what is wrong.
 */
export function runHttpRoutesContract(name: string, open: () => Promise<HttpHostFixture>): void {
  let fixture: HttpHostFixture | undefined;
  const host = (): HttpHostFixture => {
    if (!fixture) throw new Error(`${name}: the HTTP host fixture is not ready (did beforeAll fail?)`);
    return fixture;
  };
  const json = (answer: HttpAnswer): unknown => {
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    return JSON.parse(answer.text);
  };

  describe(`HTTP routes contract: ${name}`, () => {
    beforeAll(async () => {
      fixture = await open();
    }, 60_000);
    afterAll(async () => {
      await fixture?.close();
    });

    it('execute: 200 with the run as JSON; the body\'s options reach the run', async () => {
      const { runtime, calls } = scriptedRuntime();
      const answer = await host().request(runtime, { method: 'POST', path: 'jobs/crm-accounts/execute', body: '{"dryRun":true,"limit":5}' });
      expect(answer.status).toBe(200);
      expect(json(answer)).toEqual(runBody);
      expect(calls).toEqual(['runJob {"trigger":"manual","dryRun":true,"limit":5}']);
    });

    it.each([
      ['not JSON', '{dryRun:', /^body: not JSON \(.+\)$/],
      ['an array', '[1]', /^body: expected a JSON object$/],
      ['a misspelt option', '{"limt":5}', /^body\.limt: unknown property \(allowed: dryRun, limit\)$/],
      ['a limit out of range', '{"limit":0}', /^body\.limit: expected an integer from 1 to 10000$/],
      ['a wrong type', '{"dryRun":"yes"}', /^body\.dryRun: expected a boolean$/],
    ])('execute with %s: 400 BadRequest saying what is wrong, and nothing runs', async (_case, body, message) => {
      const { runtime, calls } = scriptedRuntime();
      const answer = await host().request(runtime, { method: 'POST', path: 'jobs/crm-accounts/execute', body });
      expect(answer.status).toBe(400);
      expect(json(answer)).toEqual({ error: { code: 'BadRequest', message: expect.stringMatching(message) } });
      expect(calls).toEqual([]);
    });

    it('execute of an unknown job: 404 naming it; configuration unavailable: 503 saying why', async () => {
      const unknown = await host().request(scriptedRuntime().runtime, { method: 'POST', path: 'jobs/erp-orders/execute' });
      expect(unknown.status).toBe(404);
      expect(json(unknown)).toEqual({ error: { code: 'JobNotFound', message: 'unknown job "erp-orders"' } });
      const down = await host().request(scriptedRuntime({ configFails: 'config table unreachable' }).runtime, { method: 'POST', path: 'jobs/crm-accounts/execute' });
      expect(down.status).toBe(503);
      expect(json(down)).toEqual({ error: { code: 'ConfigurationUnavailable', message: 'config table unreachable' } });
    });

    it('execute of a long run: 202 with its status URL on this host, in Location and the body', async () => {
      const answer = await host().request(scriptedRuntime({ accepted: true }).runtime, { method: 'POST', path: 'jobs/crm-accounts/execute' });
      const statusUrl = `${host().origin}/api/runs/${RUN_ID}`;
      expect(answer.status).toBe(202);
      expect(answer.headers).toMatchObject({ location: statusUrl, 'retry-after': '30' });
      expect(json(answer)).toEqual({ id: RUN_ID, job: 'crm-accounts', state: 'Running', acceptedAt: '2026-03-01T08:00:00.000Z', statusUrl });
    });

    it('run status: 200 for a known run, 404 for an unknown or malformed id', async () => {
      const { runtime } = scriptedRuntime();
      const known = await host().request(runtime, { method: 'GET', path: `runs/${RUN_ID}` });
      expect(known.status).toBe(200);
      expect(json(known)).toEqual({ id: RUN_ID, job: 'crm-accounts', state: 'Succeeded', acceptedAt: runBody.startedAt, heartbeatAt: runBody.endedAt, endedAt: runBody.endedAt, result: runBody });
      const unknown = await host().request(runtime, { method: 'GET', path: 'runs/9998215412345-ffffffff' });
      expect(unknown.status).toBe(404);
      expect(json(unknown)).toEqual({ error: { code: 'RunNotFound', message: 'unknown run "9998215412345-ffffffff" (kept: the newest 500 accepted runs)' } });
      const malformed = await host().request(runtime, { method: 'GET', path: 'runs/latest' });
      expect(json(malformed)).toEqual({ error: { code: 'RunNotFound', message: 'unknown run "latest" (run ids look like 9998215412345-0a1b2c3d)' } });
    });

    it('push: 202 with the outcome; the body text and whether the host authenticated reach the service', async () => {
      const { runtime, calls } = scriptedRuntime({ push: async () => ({ sent: 2 }) });
      const answer = await host().request(runtime, { method: 'POST', path: 'hooks/crm-accounts', body: '{"value":[{"id":"Zürich"}]}', headers: { 'content-type': 'application/json' } });
      expect(answer.status).toBe(202);
      expect(json(answer)).toEqual({ accepted: true, sent: 2 });
      expect(calls).toEqual([`push crm-accounts hostAuthenticated=${host().authenticatesCallers} body={"value":[{"id":"Zürich"}]}`]);
    });

    it('push refused: its status and code; a failing service: 503 without the secret in its error', async () => {
      const refused = scriptedRuntime({ push: () => Promise.reject(new PushRejection(400, 'BadNotification', 'body.value[0].id: expected a text')) });
      const bad = await host().request(refused.runtime, { method: 'POST', path: 'hooks/crm-accounts', body: '{}' });
      expect(bad.status).toBe(400);
      expect(json(bad)).toEqual({ error: { code: 'BadNotification', message: 'body.value[0].id: expected a text' } });
      const failing = scriptedRuntime({ push: () => Promise.reject(new Error('bus down: SharedAccessKey=c2VjcmV0')) });
      const down = await host().request(failing.runtime, { method: 'POST', path: 'hooks/crm-accounts', body: '{}' });
      expect(down.status).toBe(503);
      expect(down.text).not.toContain('c2VjcmV0');
      expect(json(down)).toMatchObject({ error: { code: 'PushUnavailable', message: expect.stringMatching(/^the notification was not accepted: bus down: /) } });
    });

    it('push handshake: the query token back as plain text, on GET and POST; GET without one: the contract as JSON', async () => {
      const { runtime } = scriptedRuntime();
      for (const method of ['GET', 'POST'] as const) {
        const answer = await host().request(runtime, { method, path: 'hooks/crm-accounts?validationToken=tok%2Fen+1' });
        expect(answer).toMatchObject({ status: 200, text: 'tok/en 1' });
        expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8');
      }
      const contract = await host().request(runtime, { method: 'GET', path: 'hooks/crm-accounts' });
      expect(contract.status).toBe(200);
      expect(json(contract)).toEqual({ job: 'crm-accounts', parameters: [] });
    });
  });
}
