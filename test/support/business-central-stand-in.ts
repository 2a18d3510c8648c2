import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for Business Central's API v2.0 as far as webhooks need it, speaking the
 * protocol Microsoft documents ("Working with webhooks in Dynamics 365 Business Central",
 * "Create / Update / Delete subscriptions"):
 * - `GET|POST subscriptions`, `PATCH|DELETE subscriptions('<id>')` with `If-Match` (412 on a stale
 *   ETag, 404 for one that is gone); creating and renewing first call the `notificationUrl` with
 *   `?validationToken=<token>` and go on only when the answer is 200 with exactly the token as
 *   its body (else 400, nothing created or renewed); a subscription lapses three days after it was
 *   created or last renewed;
 * - `GET companies(<id>)/customers(<id>)`: a record as the API returns it (404 with BC's error
 *   body when there is none);
 * - notifications `{ value: [{ subscriptionId, clientState, expirationDateTime, resource,
 *   changeType, lastModifiedDateTime }] }` posted to each live subscription of the resource; an
 *   answer other than 2xx, 408, 429 or 5xx deletes the subscription, as Business Central does.
 * Subscription lifetimes run on its own clock (`advance`), so expiry can be tested without
 * waiting three days; records are stamped with the real time, as Business Central's are.
 */
export const COMPANY_ID = 'f64eba74-dacd-4854-a584-1834f68cfc3a';
const LIFETIME_MS = 3 * 24 * 3600_000;

interface Subscription {
  subscriptionId: string;
  notificationUrl: string;
  resource: string;
  clientState?: string;
  expires: number;
  etag: string;
  /** Test hook: answer the next PATCH with 404 while still listing it (a delete racing the renewal). */
  vanishOnPatch?: boolean;
}

export interface Customer {
  id: string;
  number: string;
  displayName: string;
  city: string;
  lastModifiedDateTime: string;
}

export class BusinessCentralStandIn {
  readonly customers = new Map<string, Customer>();
  readonly subscriptions = new Map<string, Subscription>();
  /** Handshakes made (token sent, status and body received). */
  readonly handshakes: Array<{ url: string; status: number; ok: boolean }> = [];
  private offsetMs = 0;
  private server!: Server;
  url = '';

  now(): number {
    return Date.now() + this.offsetMs;
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/v2.0/`;
    return this.url;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  /** The resource a subscription to customers names. */
  get customersResource(): string {
    return `/api/v2.0/companies(${COMPANY_ID})/customers`;
  }

  /** Changes a customer as a user would, then notifies as Business Central does; the subscriber's answers. */
  async change(changeType: 'created' | 'updated' | 'deleted', customer: Omit<Customer, 'lastModifiedDateTime'>): Promise<number[]> {
    const stamp = new Date().toISOString();
    if (changeType === 'deleted') this.customers.delete(customer.id);
    else this.customers.set(customer.id, { ...customer, lastModifiedDateTime: stamp });
    return this.notify(changeType, `api/v2.0/companies(${COMPANY_ID})/customers(${customer.id})`, stamp);
  }

  /** A `collection` notification: over a thousand changes in the delay window. */
  notifyCollection(): Promise<number[]> {
    const stamp = new Date().toISOString();
    return this.notify('collection', `/api/v2.0/companies(${COMPANY_ID})/customers?$filter=lastModifiedDateTime%20gt%20${stamp}`, stamp);
  }

  /** Posts one notification to every live subscription of customers, with `clientState` (or the subscription's own). */
  async notify(changeType: string, resource: string, stamp: string, clientState?: string): Promise<number[]> {
    const statuses: number[] = [];
    for (const sub of this.live()) {
      if (sub.resource.toLowerCase() !== this.customersResource.toLowerCase()) continue;
      const body = {
        value: [{ subscriptionId: sub.subscriptionId, clientState: clientState ?? sub.clientState, expirationDateTime: new Date(sub.expires).toISOString(), resource, changeType, lastModifiedDateTime: stamp }],
      };
      const response = await fetch(sub.notificationUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await response.text();
      statuses.push(response.status);
      const retried = response.ok || response.status === 408 || response.status === 429 || response.status >= 500;
      if (!retried) this.subscriptions.delete(sub.subscriptionId);
    }
    return statuses;
  }

  private live(): Subscription[] {
    for (const [id, sub] of this.subscriptions) if (sub.expires <= this.now()) this.subscriptions.delete(id);
    return [...this.subscriptions.values()];
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = decodeURIComponent(url.pathname).replace(/^\/api\/v2\.0\//, '');
    const json = (status: number, body?: unknown) => {
      res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json; odata.metadata=minimal' });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    const error = (status: number, code: string, message: string) => json(status, { error: { code, message } });
    let m: RegExpExecArray | null;
    if ((m = /^companies\(([^)]+)\)\/customers\(([^)]+)\)$/.exec(path)) && req.method === 'GET') {
      const customer = m[1] === COMPANY_ID ? this.customers.get(m[2]) : undefined;
      if (!customer) return error(404, 'BadRequest_NotFound', `The Customer does not exist. Identification fields and values: Id='${m[2]}'`);
      return json(200, { '@odata.context': `${this.url}$metadata#companies(${COMPANY_ID})/customers/$entity`, '@odata.etag': `W/"${customer.lastModifiedDateTime}"`, ...customer });
    }
    if (path === 'subscriptions' && req.method === 'GET') return json(200, { '@odata.context': `${this.url}$metadata#subscriptions`, value: this.live().map((s) => this.view(s)) });
    if (path === 'subscriptions' && req.method === 'POST') {
      const init = JSON.parse(text) as { notificationUrl: string; resource: string; clientState?: string };
      if (!(await this.handshake(init.notificationUrl))) return error(400, 'BadRequest', `The subscription could not be created: the notification URL ${init.notificationUrl} did not answer the handshake with the validation token.`);
      const sub: Subscription = { subscriptionId: randomUUID().replace(/-/g, ''), ...init, expires: this.now() + LIFETIME_MS, etag: `W/"${randomUUID()}"` };
      this.subscriptions.set(sub.subscriptionId, sub);
      return json(201, this.view(sub));
    }
    if ((m = /^subscriptions\('([^']+)'\)$/.exec(path))) {
      const sub = this.live().find((s) => s.subscriptionId === m![1]);
      if (!sub || (req.method === 'PATCH' && sub.vanishOnPatch)) {
        if (sub) this.subscriptions.delete(sub.subscriptionId);
        return error(404, 'BadRequest_NotFound', `The Subscription does not exist. Identification fields and values: Subscription Id='${m[1]}'`);
      }
      const ifMatch = req.headers['if-match'];
      if (ifMatch === undefined) return error(428, 'Precondition_Required', 'An If-Match header is required.');
      if (ifMatch !== '*' && ifMatch !== sub.etag) return error(412, 'Request_EntityChanged', 'Could not update the subscription because it was changed meanwhile.');
      if (req.method === 'DELETE') {
        this.subscriptions.delete(sub.subscriptionId);
        return json(204);
      }
      if (req.method === 'PATCH') {
        const init = JSON.parse(text) as Partial<Subscription>;
        if (!(await this.handshake(init.notificationUrl ?? sub.notificationUrl))) return error(400, 'BadRequest', 'The subscription could not be renewed: the handshake failed.');
        Object.assign(sub, { notificationUrl: init.notificationUrl ?? sub.notificationUrl, clientState: init.clientState ?? sub.clientState, expires: this.now() + LIFETIME_MS, etag: `W/"${randomUUID()}"` });
        return json(200, this.view(sub));
      }
    }
    return error(404, 'BadRequest_MethodNotFound', `No HTTP resource was found that matches the request URI '${req.url}'.`);
  }

  private async handshake(notificationUrl: string): Promise<boolean> {
    const token = randomUUID();
    const url = `${notificationUrl}${notificationUrl.includes('?') ? '&' : '?'}validationToken=${encodeURIComponent(token)}`;
    try {
      const response = await fetch(url, { method: 'POST', signal: AbortSignal.timeout(5_000) });
      const body = await response.text();
      const ok = response.status === 200 && body === token;
      this.handshakes.push({ url: notificationUrl, status: response.status, ok });
      return ok;
    } catch {
      this.handshakes.push({ url: notificationUrl, status: 0, ok: false });
      return false;
    }
  }

  private view(s: Subscription): Record<string, unknown> {
    return {
      '@odata.etag': s.etag,
      subscriptionId: s.subscriptionId,
      notificationUrl: s.notificationUrl,
      resource: s.resource,
      userId: '00000000-0000-0000-0000-000000000001',
      lastModifiedDateTime: new Date(s.expires - LIFETIME_MS).toISOString(),
      clientState: s.clientState ?? '',
      expirationDateTime: new Date(s.expires).toISOString(),
    };
  }
}
