import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the service received. */
export interface ServiceRequest {
  method: string;
  path: string;
  body: string;
  /** What the service answered. */
  status: number;
  /** When it arrived, by the service's clock (ms since the epoch). */
  at: number;
}

export interface ThrottlingServiceOptions {
  /** How many writes (POST/PATCH/DELETE) to answer 429 before accepting. Default 1. */
  throttledWrites?: number;
  /** The `Retry-After` header of each 429, from the time of the request: delta seconds or an HTTP date. Default `'7'`. */
  retryAfter?: (now: Date) => string;
  /** The service's clock (a test's fake clock). Default: the system time. */
  now?: () => Date;
}

/**
 * A tiny OData-speaking HTTP service on 127.0.0.1 for throttling tests: the first writes are
 * answered `429 Too Many Requests` with `Retry-After` and an OData error body, every later
 * write `204 No Content`; reads answer 404 (no record). Everything it received is in `requests`.
 */
export class ThrottlingService {
  readonly requests: ServiceRequest[] = [];
  private readonly server: http.Server;
  private throttledLeft: number;

  private constructor(private readonly options: ThrottlingServiceOptions) {
    this.throttledLeft = options.throttledWrites ?? 1;
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => this.answer(req, Buffer.concat(chunks).toString('utf8'), res));
    });
  }

  static async start(options: ThrottlingServiceOptions = {}): Promise<ThrottlingService & { serviceUrl: string }> {
    const service = new ThrottlingService(options);
    await new Promise<void>((resolve) => service.server.listen(0, '127.0.0.1', resolve));
    const { port } = service.server.address() as AddressInfo;
    return Object.assign(service, { serviceUrl: `http://127.0.0.1:${port}/odata/` });
  }

  /** Writes received so far (throttled or accepted). */
  writes(): ServiceRequest[] {
    return this.requests.filter((r) => r.method !== 'GET');
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private answer(req: http.IncomingMessage, body: string, res: http.ServerResponse): void {
    const at = (this.options.now?.() ?? new Date()).getTime();
    const method = req.method ?? 'GET';
    const path = decodeURIComponent(req.url ?? '/');
    const json = { 'content-type': 'application/json', 'odata-version': '4.0' };
    let status: number;
    if (method === 'GET') {
      status = 404;
      res.writeHead(status, json).end(JSON.stringify({ error: { code: 'NotFound', message: 'no such record' } }));
    } else if (this.throttledLeft > 0) {
      this.throttledLeft--;
      status = 429;
      res.writeHead(status, { ...json, 'retry-after': this.options.retryAfter?.(new Date(at)) ?? '7' });
      res.end(JSON.stringify({ error: { code: 'TooManyRequests', message: 'Rate limit is exceeded. Try again later.' } }));
    } else {
      status = 204;
      res.writeHead(status, { 'odata-version': '4.0' }).end();
    }
    this.requests.push({ method, path, body, status, at });
  }
}
