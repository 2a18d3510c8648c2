import http from 'node:http';
import net from 'node:net';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { readSettings } from '../../../src/platform/settings';
import { startLocalHost, type LocalHost } from '../../../src/host/local-host';
import { startTestAzurite, type TestAzurite } from '../../support/azurite';
import { recordingLogger, writeSyncFolder, type SyncFolder } from '../../e2e/faults/support/sync-folder';
import { HTTP_CASES } from './support/http-cases';
import { storedState } from './support/stored-state';
import { allQueueNames } from '../../../src/platform/queue-topology';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** Sends a request with the path exactly as given (no URL normalization on the way). */
function send(base: string, method: string, requestPath: string, body?: string | Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, method, path: requestPath, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Writes raw bytes on a new connection and resolves with everything the host answered before closing it. */
function raw(base: string, bytes: string, closeAfterMs?: number): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(bytes);
      if (closeAfterMs !== undefined) setTimeout(() => socket.destroy(), closeAfterMs);
    });
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

/**
 * Malformed requests to every route of the local host: each gets its documented status and a
 * JSON error naming what is wrong, nothing stored changes (no run, no watermark, no message), and
 * the host keeps serving — also after requests that are not HTTP at all.
 */
describe('malformed HTTP requests to the local host', () => {
  let azurite: TestAzurite;
  let folder: SyncFolder;
  let host: LocalHost;
  const log = recordingLogger();
  let before: Record<string, unknown>;

  async function queueState() {
    const { bus, settings } = host.runtime;
    return Promise.all(allQueueNames(settings.queues).map(async (queue) => [queue, await bus.counts(queue)]));
  }

  beforeAll(async () => {
    azurite = await startTestAzurite();
    folder = writeSyncFolder();
    folder.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)').run('A-1', 'Acme', 'Bonn', '2026-01-01T00:00:00.000Z');
    host = await startLocalHost({
      configDir: folder.dir,
      port: 0,
      log,
      noSchedule: true,
      settings: { ...readSettings({}), storageConnectionString: azurite.connectionString, dataDir: path.join(folder.dir, 'data') },
    });
    before = { tables: await storedState(azurite.connectionString), queues: await queueState() };
  }, 60_000);

  afterAll(async () => {
    await host?.stop();
    await azurite?.stop();
    folder?.close();
    if (folder) rmSync(folder.dir, { recursive: true, force: true });
  });

  it.each(HTTP_CASES.map((c) => [c.label, c] as const))('%s', async (_label, c) => {
    const answer = await send(host.url, c.method, c.path, c.body, c.headers);
    expect({ status: answer.status, type: answer.headers['content-type'], body: JSON.parse(answer.text) as unknown }).toEqual({
      status: c.status,
      type: 'application/json; charset=utf-8',
      body: { error: { code: c.code, message: c.message } },
    });
    if (c.allow) expect(answer.headers.allow).toBe(c.allow);
  });

  it('answers requests that are not HTTP with 400 and closes only that connection', async () => {
    expect(await raw(host.url, 'HELLO THERE\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(await raw(host.url, 'POST /api/jobs/crm-accounts/execute HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    // Headers over Node's 16 KB limit: 431 from Node itself (no JSON body).
    expect(await raw(host.url, `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Pad: ${'x'.repeat(20_000)}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect((await send(host.url, 'GET', '/api/health')).status).toBe(200);
  });

  it('survives a client that hangs up in the middle of a body', async () => {
    const logged = log.lines.length;
    // A Host this host answers (another one gets 421 before the body is read: host-header.test.ts).
    await raw(host.url, `POST /api/jobs/crm-accounts/execute HTTP/1.1\r\nHost: ${new URL(host.url).host}\r\nContent-Length: 1000\r\n\r\n{"dryRun":`, 100);
    expect((await send(host.url, 'GET', '/api/health')).status).toBe(200);
    expect(log.lines.slice(logged)).toEqual(['warn HTTP POST /api/jobs/crm-accounts/execute: client went away (aborted)']);
  });

  it('changed nothing stored, and still serves valid requests', async () => {
    expect({ tables: await storedState(azurite.connectionString), queues: await queueState() }).toEqual(before);
    const health = await send(host.url, 'GET', '/api/health/');
    expect([health.status, JSON.parse(health.text).status]).toEqual([200, 'ok']);
    const dryRun = await send(host.url, 'POST', '/api/jobs/crm-accounts/execute', '{"dryRun":true,"limit":5}');
    expect(dryRun.status).toBe(200);
    expect(JSON.parse(dryRun.text)).toMatchObject({ job: 'crm-accounts', outcome: 'Succeeded', detected: 1, sent: 0 });
    expect({ tables: await storedState(azurite.connectionString), queues: await queueState() }).toEqual(before);
  });
});
