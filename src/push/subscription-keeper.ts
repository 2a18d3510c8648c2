import type { BcSubscription, BcSubscriptionInit, BusinessCentralPushClient } from '../../connectors/businesscentral/bc-push-client';
import type { Job } from '../model/job';
import type { Mapping } from '../model/mapping';
import type { Clock } from '../platform/clock';
import { ConfigError, errorMessage } from '../platform/errors';
import type { Logger } from '../telemetry/logger';
import { secretRedactor } from '../../connectors/base/connector-context';

/** Renew a subscription once it expires within this (Business Central's last three days; the timer looks every hour). */
export const RENEW_BEFORE_MS = 24 * 3600_000;

export interface SubscriptionKeeperDeps {
  config: { ensureInitialized(): Promise<unknown>; jobs(): readonly Job[]; getMapping(name: string): Mapping | undefined };
  businessCentral(connectionName: string): BusinessCentralPushClient;
  env: NodeJS.ProcessEnv;
  clock: Pick<Clock, 'now'>;
  log: Logger;
}

/** What keeping one job's subscription did. */
export interface KeptSubscription {
  job: string;
  /** `created` (none was there, or the one there was gone: 404), `renewed`, `kept` (not due), or `failed`. */
  action: 'created' | 'renewed' | 'kept' | 'failed';
  subscriptionId?: string;
  expirationDateTime?: string;
  /** The resource subscribed to (Business Central's path of the mapping's entity); not set when failed. */
  resource?: string;
  error?: string;
}

/**
 * What the keeper knows of one job's subscription from its own runs since the process started
 * (the status page): the last subscription it created, renewed or found, and the last failure.
 */
export interface KnownSubscription {
  job: string;
  /** Null until a run got as far as Business Central. */
  resource: string | null;
  subscriptionId: string | null;
  expirationDateTime: string | null;
  /** When this keeper last created or renewed it (null: only found, still valid). */
  lastRenewedAt: string | null;
  /** When this keeper last looked at it. */
  lastCheckedAt: string;
  lastAction: KeptSubscription['action'];
  /** The last failure (redacted), kept after later successes so a flapping renewal shows. */
  lastError: string | null;
  lastErrorAt: string | null;
}

/**
 * Keeps a Business Central webhook subscription for every job with `push.format:
 * businesscentral`: one per (notification URL, resource), created when missing, renewed (PATCH,
 * with Business Central's handshake) once it expires within a day, created again when the
 * renewal finds it gone. Run by a timer on both hosts; each job is kept on its own, so one that
 * fails (Business Central down, a wrong URL the handshake cannot reach) is reported and retried
 * on the next run while the others go on.
 */
export class SubscriptionKeeper {
  private readonly knownByJob = new Map<string, KnownSubscription>();

  constructor(private readonly deps: SubscriptionKeeperDeps) {}

  /** What the runs of {@link keepAll} in this process learnt, by job name. Never throws. */
  known(): KnownSubscription[] {
    return [...this.knownByJob.values()].map((k) => ({ ...k }));
  }

  /** The jobs that take Business Central notifications. */
  async jobs(): Promise<Job[]> {
    await this.deps.config.ensureInitialized();
    return this.deps.config.jobs().filter((job) => job.push?.format === 'businesscentral');
  }

  /** Keeps the subscription of every such job (or of `only`). Never throws for one job's failure. */
  async keepAll(only?: string): Promise<KeptSubscription[]> {
    const out: KeptSubscription[] = [];
    for (const job of (await this.jobs()).filter((j) => only === undefined || j.name === only)) {
      let kept: KeptSubscription;
      try {
        kept = await this.keep(job);
      } catch (err) {
        // Business Central's errors may quote the notification URL (its query holds the function
        // key) or the client state: neither reaches a log or the report.
        const error = this.redactor(job)(errorMessage(err));
        this.deps.log.warn(`job "${job.name}": Business Central subscription not kept: ${error}`);
        kept = { job: job.name, action: 'failed', error };
      }
      this.remember(kept);
      out.push(kept);
    }
    return out;
  }

  private remember(kept: KeptSubscription): void {
    const at = this.deps.clock.now().toISOString();
    const before = this.knownByJob.get(kept.job);
    const failed = kept.action === 'failed';
    this.knownByJob.set(kept.job, {
      job: kept.job,
      // A failed run says nothing new of the subscription: what was known stays.
      resource: kept.resource ?? before?.resource ?? null,
      subscriptionId: failed ? (before?.subscriptionId ?? null) : (kept.subscriptionId ?? null),
      expirationDateTime: failed ? (before?.expirationDateTime ?? null) : (kept.expirationDateTime ?? null),
      lastRenewedAt: kept.action === 'created' || kept.action === 'renewed' ? at : (before?.lastRenewedAt ?? null),
      lastCheckedAt: at,
      lastAction: kept.action,
      lastError: failed ? (kept.error ?? null) : (before?.lastError ?? null),
      lastErrorAt: failed ? at : (before?.lastErrorAt ?? null),
    });
  }

  private redactor(job: Job): (text: string) => string {
    const push = job.push!;
    const url = push.notificationUrl ? this.deps.env[push.notificationUrl] : undefined;
    const query = url?.includes('?') ? url.slice(url.indexOf('?') + 1) : undefined;
    return secretRedactor([url, query, push.clientState ? this.deps.env[push.clientState] : undefined, push.secret ? this.deps.env[push.secret] : undefined]);
  }

  /** The subscriptions Business Central lists for each job's connection and resource. */
  async list(): Promise<Array<{ job: string; subscriptions: BcSubscription[] }>> {
    const out = [];
    for (const job of await this.jobs()) {
      const { client, init } = await this.target(job);
      out.push({ job: job.name, subscriptions: (await client.listSubscriptions()).filter((s) => sameResource(s.resource, init.resource)) });
    }
    return out;
  }

  /** Deletes every subscription of the job's resource and notification URL; the number deleted. */
  async remove(job: Job): Promise<number> {
    const { client, init } = await this.target(job);
    let deleted = 0;
    for (const s of await client.listSubscriptions()) {
      if (sameResource(s.resource, init.resource) && s.notificationUrl === init.notificationUrl && (await client.deleteSubscription(s))) deleted++;
    }
    return deleted;
  }

  private async keep(job: Job): Promise<KeptSubscription> {
    const { client, init } = await this.target(job);
    const found = (await client.listSubscriptions()).find((s) => sameResource(s.resource, init.resource) && s.notificationUrl === init.notificationUrl);
    const resource = init.resource;
    if (!found) return this.created(job, await client.createSubscription(init), resource);
    const expires = Date.parse(found.expirationDateTime);
    if (Number.isFinite(expires) && expires - this.deps.clock.now().getTime() > RENEW_BEFORE_MS) {
      return { job: job.name, action: 'kept', subscriptionId: found.subscriptionId, expirationDateTime: found.expirationDateTime, resource };
    }
    const renewed = await client.renewSubscription(found, init);
    if (!renewed) return this.created(job, await client.createSubscription(init), resource);
    this.deps.log.info(`job "${job.name}": Business Central subscription ${renewed.subscriptionId} renewed until ${renewed.expirationDateTime}`);
    return { job: job.name, action: 'renewed', subscriptionId: renewed.subscriptionId, expirationDateTime: renewed.expirationDateTime, resource };
  }

  private created(job: Job, s: BcSubscription, resource: string): KeptSubscription {
    this.deps.log.info(`job "${job.name}": Business Central subscription ${s.subscriptionId} created until ${s.expirationDateTime}`);
    return { job: job.name, action: 'created', subscriptionId: s.subscriptionId, expirationDateTime: s.expirationDateTime, resource };
  }

  /** The job's client and what its subscription says. @throws ConfigError for a missing setting or mapping. */
  private async target(job: Job): Promise<{ client: BusinessCentralPushClient; init: BcSubscriptionInit }> {
    const push = job.push!;
    const mapping = this.deps.config.getMapping(job.mapping);
    if (!mapping) throw new ConfigError(`job "${job.name}": unknown mapping "${job.mapping}"`);
    const notificationUrl = push.notificationUrl ? this.deps.env[push.notificationUrl] : undefined;
    if (!notificationUrl) throw new ConfigError(`job "${job.name}": push.notificationUrl: app setting ${push.notificationUrl ?? '(none)'} is not set`);
    const clientState = push.clientState ? this.deps.env[push.clientState] : undefined;
    if (push.clientState && !clientState) throw new ConfigError(`job "${job.name}": push.clientState: app setting ${push.clientState} is not set`);
    const client = this.deps.businessCentral(job.source);
    const init: BcSubscriptionInit = { notificationUrl, resource: await client.resourcePath(mapping.source.entity), ...(clientState ? { clientState } : {}) };
    return { client, init };
  }
}

/** Business Central answers resources with or without the leading `/`, in its own case. */
function sameResource(a: string, b: string): boolean {
  const norm = (r: string) => r.replace(/^\//, '').toLowerCase();
  return norm(a) === norm(b);
}
