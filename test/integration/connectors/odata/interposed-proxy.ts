import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface SeenRequest {
  method: string;
  /** Path and query as received, e.g. `/odata/v4/catalog/Books?$top=1`. */
  url: string;
  headers: Record<string, string>;
  body: string;
}

interface ProxyAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface InterposedProxy {
  /** The proxy's origin, e.g. `http://127.0.0.1:PORT`. */
  origin: string;
  /** Every request received, in order. */
  readonly seen: SeenRequest[];
  /** Answers a request itself instead of forwarding it when this returns an answer (e.g. 429). */
  intercept?: (request: SeenRequest) => ProxyAnswer | undefined;
  /** Rewrites a forwarded JSON answer (e.g. to make next links absolute). */
  rewrite?: (body: Record<string, unknown>, request: SeenRequest) => Record<string, unknown>;
  stop(): Promise<void>;
}

/** A small HTTP proxy in front of `upstream` (an origin) that records requests and can answer some itself. */
export async function startInterposedProxy(upstream: string): Promise<InterposedProxy> {
  const proxy: InterposedProxy = { origin: '', seen: [], stop: async () => {} };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const request = await readRequest(req);
      proxy.seen.push(request);
      const answer = proxy.intercept?.(request);
      if (answer) {
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end(answer.body ?? '');
        return;
      }
      const headers = Object.fromEntries(Object.entries(request.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k)));
      const forwarded = await fetch(`${upstream}${request.url}`, { method: request.method, headers, body: request.body === '' ? undefined : request.body });
      let text = await forwarded.text();
      const type = forwarded.headers.get('content-type') ?? '';
      if (proxy.rewrite && type.includes('json') && text !== '') text = JSON.stringify(proxy.rewrite(JSON.parse(text) as Record<string, unknown>, request));
      const outHeaders: Record<string, string> = {};
      forwarded.headers.forEach((value, key) => {
        if (!['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(key)) outHeaders[key] = value;
      });
      res.writeHead(forwarded.status, outHeaders);
      res.end(text);
    })().catch((err: unknown) => {
      res.writeHead(502);
      res.end(String(err));
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  proxy.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

async function readRequest(req: IncomingMessage): Promise<SeenRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[key] = value;
  return { method: req.method ?? 'GET', url: req.url ?? '/', headers, body: Buffer.concat(chunks).toString('utf8') };
}
