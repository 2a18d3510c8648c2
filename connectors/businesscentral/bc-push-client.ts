import type { ConnectorContext } from '../base/connector-context';
import { PermanentError } from '../../src/platform/errors';
import { openOdataConnection, type OdataTransportOverrides } from '../odata/odata-connection';
import { rowsOf } from '../odata/source-rows';
import { companyServiceRoot } from './bc-company';
import { BC_SCOPE, businessCentralApiRoot, type BusinessCentralSettings } from './bc-settings';

/** A webhook subscription as Business Central's `subscriptions` API returns it. */
export interface BcSubscription {
  subscriptionId: string;
  notificationUrl: string;
  /** The subscribed entity set, e.g. `/api/v2.0/companies(…)/customers`. */
  resource: string;
  clientState?: string;
  /** ISO 8601; Business Central lets a subscription lapse three days after its creation or last renewal. */
  expirationDateTime: string;
  /** `@odata.etag`: renewals and deletes send it as `If-Match`. */
  etag?: string;
}

export interface BcSubscriptionInit {
  notificationUrl: string;
  resource: string;
  clientState?: string;
}

/**
 * What push needs of a Business Central connection: the path its notifications name an entity
 * set by, one record read by id, and the webhook subscriptions of the API. Every method throws
 * the connector's classified errors (TransientError for an outage or throttling, ConfigError for
 * a refused credential or an unknown company, PermanentError for an answer it cannot read).
 */
export interface BusinessCentralPushClient {
  /** `/api/…/companies(<id>)/<entitySet>`: what a subscription's `resource` is. */
  resourcePath(entitySet: string): Promise<string>;
  /** The record as the API returns it now; undefined when it is gone (404). */
  readRecord(entitySet: string, id: string): Promise<Record<string, unknown> | undefined>;
  listSubscriptions(): Promise<BcSubscription[]>;
  /** POST: Business Central validates `notificationUrl` (the handshake) before it answers 201. */
  createSubscription(init: BcSubscriptionInit): Promise<BcSubscription>;
  /** PATCH with `If-Match`, which renews it for three days (with a handshake too); undefined when it is gone (404). */
  renewSubscription(subscription: BcSubscription, init: BcSubscriptionInit): Promise<BcSubscription | undefined>;
  /** False when it was gone already. */
  deleteSubscription(subscription: BcSubscription): Promise<boolean>;
}

/** The client of a `businesscentral` connection. `overrides` replace the transport (tests). */
export function openBusinessCentralPushClient(ctx: ConnectorContext, overrides?: OdataTransportOverrides): BusinessCentralPushClient {
  const settings = ctx.connection.settings as unknown as BusinessCentralSettings;
  const label = `businesscentral connection "${ctx.connection.name}"`;
  const open = openOdataConnection(ctx, { type: 'businesscentral', defaultScope: BC_SCOPE, overrides, maxConcurrencyCap: 5 });
  const api = open(businessCentralApiRoot(settings));
  const company = open(() => companyServiceRoot(api, settings.company, label));
  const path = (id: string) => `subscriptions('${id.replace(/'/g, "''")}')`;
  return {
    async resourcePath(entitySet) {
      const pathname = new URL((await company.serviceRoot()).href).pathname;
      // Online roots carry /v2.0/<tenant>/<environment> before the API path; resources start at /api/.
      const at = pathname.indexOf('/api/');
      return `${at >= 0 ? pathname.slice(at) : pathname}${entitySet}`;
    },
    async readRecord(entitySet, id) {
      const response = await company.request({ method: 'GET', url: `${entitySet}(${id})`, operation: `read ${entitySet}(${id})`, accept: [404], retryThrottled: true });
      if (response.status === 404) return undefined;
      if (!response.body) throw new PermanentError(`${label}: read ${entitySet}(${id}): the answer is not a JSON record (HTTP ${response.status})`);
      return response.body;
    },
    async listSubscriptions() {
      const response = await api.request({ method: 'GET', url: 'subscriptions', operation: 'list webhook subscriptions', retryThrottled: true });
      return rowsOf(response, `${label}: subscriptions`).map((row) => subscriptionOf(row, label));
    },
    async createSubscription(init) {
      const response = await api.request({ method: 'POST', url: 'subscriptions', body: init, operation: `subscribe to ${init.resource}` });
      return subscriptionOf(response.body, label);
    },
    async renewSubscription(subscription, init) {
      const response = await api.request({
        method: 'PATCH',
        url: path(subscription.subscriptionId),
        body: init,
        headers: { 'If-Match': subscription.etag ?? '*' },
        operation: `renew subscription ${subscription.subscriptionId}`,
        accept: [404],
      });
      return response.status === 404 ? undefined : subscriptionOf(response.body, label);
    },
    async deleteSubscription(subscription) {
      const response = await api.request({
        method: 'DELETE',
        url: path(subscription.subscriptionId),
        headers: { 'If-Match': subscription.etag ?? '*' },
        operation: `delete subscription ${subscription.subscriptionId}`,
        accept: [404],
      });
      return response.status !== 404;
    },
  };
}

function subscriptionOf(row: unknown, label: string): BcSubscription {
  const r = (typeof row === 'object' && row !== null ? row : {}) as Record<string, unknown>;
  const text = (key: string) => (typeof r[key] === 'string' ? (r[key] as string) : undefined);
  const id = text('subscriptionId');
  const expires = text('expirationDateTime');
  if (!id || !expires) throw new PermanentError(`${label}: a subscription without subscriptionId or expirationDateTime in the answer`);
  const subscription: BcSubscription = { subscriptionId: id, notificationUrl: text('notificationUrl') ?? '', resource: text('resource') ?? '', expirationDateTime: expires };
  const state = text('clientState');
  if (state !== undefined) subscription.clientState = state;
  const etag = text('@odata.etag');
  if (etag !== undefined) subscription.etag = etag;
  return subscription;
}
