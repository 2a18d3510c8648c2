import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage } from '../platform/errors';
import { httpError, type HttpOutput, type HttpRoute } from '../http/http-types';
import type { Logger } from '../telemetry/logger';

/** Largest request body accepted, in bytes. */
const MAX_BODY_BYTES = 1024 * 1024;

interface CompiledRoute {
  route: HttpRoute;
  pattern: RegExp;
  names: string[];
}

/** Functions-style routes live below `/api/`; routes starting with `/` are host-only paths. */
function compile(route: HttpRoute): CompiledRoute {
  const names: string[] = [];
  const full = route.route.startsWith('/') ? route.route : `/api/${route.route}`;
  const source = full
    .split('/')
    .map((part) => {
      const m = /^\{(\w+)\}$/.exec(part);
      if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(m[1]);
      return '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}/?$`), names };
}

/**
 * The local host's HTTP server: the same routes and answers as the Functions app, on
 * `http://127.0.0.1:PORT`. Every failure becomes a JSON error; a handler that throws never takes
 * the host down.
 */
export class LocalHttpServer {
  private readonly routes: CompiledRoute[];
  private readonly server: http.Server;
  private origin = '';
  /** `Host` values this server answers (lower case): its loopback names with its port. */
  private hosts = new Set<string>();

  constructor(routes: HttpRoute[], private readonly log: Logger) {
    this.routes = routes.map(compile);
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  /** Listens on 127.0.0.1; port 0 picks a free one. Resolves with the base URL. */
  listen(port: number): Promise<string> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        const bound = (this.server.address() as AddressInfo).port;
        this.origin = `http://127.0.0.1:${bound}`;
        this.hosts = loopbackHosts(bound);
        resolve(this.origin);
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let output: HttpOutput;
    try {
      output = await this.dispatch(req);
    } catch (err) {
      if (req.destroyed || res.destroyed) {
        // The client hung up mid-request: nothing to answer, nothing wrong with the host.
        this.log.warn(`HTTP ${req.method} ${req.url}: client went away (${errorMessage(err)})`);
        return;
      }
      this.log.error(`HTTP ${req.method} ${req.url} failed: ${errorMessage(err)}`);
      output = httpError(500, 'InternalError', errorMessage(err));
    }
    const isText = typeof output.body === 'string';
    const body = output.body === undefined ? '' : isText ? (output.body as string) : JSON.stringify(output.body, null, 2);
    res.writeHead(output.status, {
      'content-type': isText ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
      ...output.headers,
    });
    res.end(body);
  }

  private async dispatch(req: http.IncomingMessage): Promise<HttpOutput> {
    // DNS rebinding: a page on another site whose name resolves to 127.0.0.1 reaches this port
    // with its own name in Host, and could read the status pages (source values in error texts,
    // absolute paths). Only the loopback names are answered (Node refuses HTTP/1.1 without Host).
    const host = req.headers.host;
    if (host !== undefined && !this.hosts.has(host.toLowerCase())) {
      return httpError(421, 'MisdirectedRequest', `this host answers only Host ${[...this.hosts].join(', ')}, got ${JSON.stringify(host)}`);
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const matches = this.routes
      .map((r) => ({ r, m: r.pattern.exec(url.pathname) }))
      .filter((x): x is { r: CompiledRoute; m: RegExpExecArray } => x.m !== null);
    if (matches.length === 0) return httpError(404, 'NotFound', `no route for ${url.pathname}`);
    const match = matches.find((x) => x.r.route.method === req.method);
    if (!match) {
      const allowed = [...new Set(matches.map((x) => x.r.route.method))].join(', ');
      return { ...httpError(405, 'MethodNotAllowed', `${req.method} not allowed on ${url.pathname} (allowed: ${allowed})`), headers: { allow: allowed } };
    }
    // A page on another site must not make the browser run jobs on this host: browsers send
    // Origin on cross-site POSTs; same-origin pages (the status page) and non-browser clients pass.
    const origin = req.headers.origin;
    if (req.method !== 'GET' && origin && origin !== this.origin && origin !== this.origin.replace('127.0.0.1', 'localhost')) {
      return httpError(403, 'Forbidden', `cross-origin request from ${origin} refused`);
    }
    const body = await readBody(req);
    if (body === undefined) return httpError(413, 'PayloadTooLarge', `request body over ${MAX_BODY_BYTES} bytes`);
    const params: Record<string, string> = {};
    try {
      match.r.names.forEach((name, i) => (params[name] = decodeURIComponent(match.m[i + 1])));
    } catch {
      return httpError(400, 'BadRequest', `malformed percent-encoding in ${url.pathname}`);
    }
    const headers: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    return match.r.route.handler({ method: req.method ?? 'GET', params, query: url.searchParams, body, headers });
  }
}

/** The Host values of a loopback server on `port` (without the port, too, on port 80). */
function loopbackHosts(port: number): Set<string> {
  const names = ['127.0.0.1', 'localhost', '[::1]'];
  return new Set([...names.map((name) => `${name}:${port}`), ...(port === 80 ? names : [])]);
}

/** The body as text, or undefined when it exceeds {@link MAX_BODY_BYTES}. */
function readBody(req: http.IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
