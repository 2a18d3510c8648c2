import http from 'node:http';
import { LocalHttpServer } from '../../../src/host/http-server';
import { silentLogger } from '../../../src/telemetry/logger';

/**
 * DNS rebinding: a page on another site whose name resolves to 127.0.0.1 sends
 * its own name in Host. The local host answers only its loopback names (with its port): 421
 * otherwise, on every route and method, before any handler runs.
 */
describe('local host: the Host header', () => {
  let server: LocalHttpServer;
  let port: number;
  let handled = 0;

  beforeAll(async () => {
    server = new LocalHttpServer(
      [
        { method: 'GET', route: 'status', handler: async () => ((handled++, { status: 200, body: { ok: true } })) },
        { method: 'POST', route: 'jobs/{name}/execute', handler: async () => ((handled++, { status: 200, body: { ran: true } })) },
      ],
      silentLogger,
    );
    port = Number(new URL(await server.listen(0)).port);
  });
  afterAll(() => server.close());

  function send(method: string, path: string, host: string | undefined): Promise<{ status: number; body: unknown }> {
    const parse = (text: string): unknown => (text === '' ? '' : JSON.parse(text));
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method, path, setHost: host === undefined ? false : undefined, headers: host === undefined ? {} : { host } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: parse(Buffer.concat(chunks).toString('utf8')) }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  const refused = (host: string) => ({
    status: 421,
    body: { error: { code: 'MisdirectedRequest', message: `this host answers only Host 127.0.0.1:${port}, localhost:${port}, [::1]:${port}, got ${JSON.stringify(host)}` } },
  });

  it.each([
    ['GET', '/api/status', 'evil.example'],
    ['GET', '/api/status', 'evil.example:PORT'],
    ['GET', '/api/status', '127.0.0.1.evil.example:PORT'],
    ['GET', '/api/status', '127.0.0.1'],
    ['GET', '/api/status', '127.0.0.1:1'],
    ['GET', '/nope', 'rebind.attacker.test:PORT'],
    ['POST', '/api/jobs/a/execute', 'evil.example:PORT'],
  ])('%s %s with Host %s: 421, no handler runs', async (method, path, template) => {
    const host = template.replace('PORT', String(port));
    const before = handled;
    expect(await send(method, path, host)).toEqual(refused(host));
    expect(handled).toBe(before);
  });

  it.each(['127.0.0.1:PORT', 'localhost:PORT', 'LOCALHOST:PORT', '[::1]:PORT'])('answers Host %s', async (template) => {
    expect(await send('GET', '/api/status', template.replace('PORT', String(port)))).toEqual({ status: 200, body: { ok: true } });
  });

  it('leaves a request without Host to Node, which refuses HTTP/1.1 without one (400, no body)', async () => {
    const before = handled;
    expect(await send('GET', '/api/status', undefined)).toEqual({ status: 400, body: '' });
    expect(handled).toBe(before);
  });
});
