import { canonicalChangeTracker, ConnectorBase } from '../../connectors/base/connector-base';
import type { MessageBus } from '../bus/message-bus';
import { messageIdFor, toOutgoingMessage } from '../bus/message-properties';
import { ServiceBusService } from '../bus/service-bus-service';
import { type Job, JobActionType } from '../model/job';
import type { Mapping } from '../model/mapping';
import type { QueueMessage } from '../model/queue-message';
import { parseWatermarkType, WatermarkValue } from '../model/watermark-value';
import { pushMaxAgeSeconds } from '../model/push';
import type { Clock } from '../platform/clock';
import { errorMessage } from '../platform/errors';
import type { QueueNames } from '../platform/queue-topology';
import type { Logger } from '../telemetry/logger';
import type { BusinessCentralPushClient } from '../../connectors/businesscentral/bc-push-client';
import type { DataverseRecordReader } from '../../connectors/dataverse/dataverse-record-reader';
import { readBusinessCentralNotification } from './bc-notification';
import { dataverseTable, readDataverseNotification } from './dataverse-notification';
import { readGenericNotification } from './generic-notification';
import { checkSharedSecret } from './push-auth';
import { MAX_PUSH_BODY_BYTES, pushContract, upsertColumns } from './push-contract';
import { PushRejection, type PushedChange, type PushReading } from './push-reading';

/** How far a sender's clock may run ahead of ours before its notification is refused. */
const FUTURE_SKEW_MS = 5 * 60_000;

export interface PushServiceDeps {
  config: {
    ensureInitialized(): Promise<unknown>;
    getJob(name: string): Job | undefined;
    getMapping(name: string): Mapping | undefined;
    /** Every job (the Service Bus route finds the jobs of a table). */
    jobs(): readonly Job[];
  };
  bus: MessageBus;
  queues: QueueNames;
  clock: Pick<Clock, 'now'>;
  /** Where the app settings named by `push.secret` and `push.clientState` are read. */
  env: NodeJS.ProcessEnv;
  log: Logger;
  /**
   * Makes the job due, durably, so the next detection tick polls it (a notification that says
   * "too many changes", or a record not carried in full). @throws when that cannot be stored.
   */
  requestPoll(job: Job): Promise<void>;
  /** The Business Central client of a connection (format businesscentral reads records by id). @throws ConfigError for a connection that is not one. */
  businessCentral(connectionName: string): BusinessCentralPushClient;
  /** The Dataverse reader of a connection (a Create or Update without a usable post-image is read by id). @throws ConfigError for a connection that is not one. */
  dataverse(connectionName: string): DataverseRecordReader;
}

/** Longest `validationToken` echoed in a handshake. */
const MAX_VALIDATION_TOKEN = 2048;

/** A notification as a host received it. */
export interface PushRequest {
  body: string;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  /** True when the host authenticated the caller already (the Functions app's function key). */
  hostAuthenticated: boolean;
  /** The query string (`code`, Business Central's `validationToken`). */
  query?: URLSearchParams;
}

/** What an accepted notification did: messages sent (durably) and/or a poll asked for. */
export interface PushOutcome {
  job: string;
  queue: string;
  /** Messages sent; a copy the bus already holds (same change pushed or polled before) is dropped there. */
  sent: number;
  messageIds: string[];
  /** Why the job was made due for a poll; absent when it was not. */
  pollRequested?: string;
}

/**
 * Turns pushed notifications into the job's queue messages: checks who sent it and what it
 * says against the job's contract, serializes each change with the job's mapping exactly as
 * detection does (so the same change gets the same message id whether pushed or polled), and
 * sends them to the job's work queue. A notification is accepted only once its messages are on
 * the bus (and a poll it asks for is stored): nothing accepted is lost. A pushed change never
 * moves the watermark: the poll stays the safety net and reads it again, and the copy it sends
 * is dropped by the bus's duplicate detection or applied idempotently.
 */
export class PushService {
  constructor(private readonly deps: PushServiceDeps) {}

  /** The job's notification contract (`GET hooks/{job}`). @throws PushRejection 404. */
  async contract(jobName: string): Promise<Record<string, unknown>> {
    const { job, mapping } = await this.pushJob(jobName);
    return pushContract(job, mapping);
  }

  /**
   * Accepts one notification for `jobName` (`POST hooks/{job}`).
   * @throws PushRejection: 404 unknown job or a job without push, 413 body too large, 401 bad
   *   secret / client state / organization, 400 malformed or not matching the contract, or
   *   older than `push.maxAgeSeconds` (a replay). Nothing is sent then.
   * @throws BusError / storage errors when the messages or the poll request could not be stored
   *   (the sender should retry; nothing is half-accepted that a retry would lose).
   */
  async receive(jobName: string, request: PushRequest): Promise<PushOutcome> {
    const { job, mapping } = await this.pushJob(jobName);
    const push = job.push!;
    if (Buffer.byteLength(request.body, 'utf8') > MAX_PUSH_BODY_BYTES) {
      throw new PushRejection(413, 'PayloadTooLarge', `body: over ${MAX_PUSH_BODY_BYTES} bytes`);
    }
    this.authenticate(job, request);
    const body = parseBody(request.body);
    const clientState = push.clientState === undefined ? undefined : (this.deps.env[push.clientState] ?? '');
    if (push.clientState !== undefined && clientState === '') throw new PushRejection(401, 'Unauthorized', `push.clientState: app setting ${push.clientState} is not set`);
    const reading =
      push.format === 'dataverse'
        ? readDataverseNotification(body, job, mapping)
        : push.format === 'businesscentral'
          ? await readBusinessCentralNotification(body, job, mapping, clientState, this.deps.businessCentral(job.source))
          : readGenericNotification(body, job, mapping, clientState);
    this.checkAge(reading, pushMaxAgeSeconds(push));
    return this.accept(job, mapping, reading);
  }

  /**
   * Business Central's handshake: when it creates or renews a subscription it calls the
   * notification URL with `?validationToken=…` and expects the token back as plain text, 200.
   * Answered without touching the bus or the tables (it must be fast).
   * @throws PushRejection 404 (unknown job, no push), 400 (not a businesscentral job, a token
   *   that is empty or too long), 401 (shared secret, local host).
   */
  async handshake(jobName: string, request: PushRequest): Promise<string> {
    const { job } = await this.pushJob(jobName);
    if (job.push!.format !== 'businesscentral') throw new PushRejection(400, 'BadNotification', `validationToken: job "${job.name}" does not take Business Central notifications`);
    this.authenticate(job, request);
    const token = request.query?.get('validationToken') ?? '';
    if (token === '' || token.length > MAX_VALIDATION_TOKEN) throw new PushRejection(400, 'BadNotification', `validationToken: expected 1 to ${MAX_VALIDATION_TOKEN} characters`);
    return token;
  }

  private authenticate(job: Job, request: PushRequest): void {
    if (request.hostAuthenticated) return;
    const push = job.push!;
    checkSharedSecret(request.headers, request.body, push.secret, push.secret ? this.deps.env[push.secret] : undefined, request.query);
  }

  /**
   * A `RemoteExecutionContext` taken from the Service Bus queue a Dataverse service endpoint posts
   * to (or a file on the local host): accepted for every job with `push.format: dataverse` whose
   * mapping reads that table. No replay check: the queue is the durable, authenticated channel.
   * @throws PushRejection (400) when no job takes it or it cannot be read; bus or storage errors.
   */
  async receiveDataverseEvent(context: unknown): Promise<PushOutcome[]> {
    await this.deps.config.ensureInitialized();
    const entity = typeof context === 'object' && context !== null ? (context as Record<string, unknown>).PrimaryEntityName : undefined;
    const jobs = this.deps.config.jobs().filter((job) => {
      const mapping = job.push?.format === 'dataverse' ? this.deps.config.getMapping(job.mapping) : undefined;
      return mapping !== undefined && dataverseTable(job, mapping) === entity;
    });
    if (jobs.length === 0) throw new PushRejection(400, 'NoJob', `$.PrimaryEntityName: no job with push.format dataverse reads table ${JSON.stringify(entity)}`);
    const outcomes: PushOutcome[] = [];
    for (const job of jobs) {
      const mapping = this.deps.config.getMapping(job.mapping)!;
      outcomes.push(await this.accept(job, mapping, readDataverseNotification(context, job, mapping)));
    }
    return outcomes;
  }

  private async pushJob(jobName: string): Promise<{ job: Job; mapping: Mapping }> {
    await this.deps.config.ensureInitialized();
    const job = this.deps.config.getJob(jobName);
    if (!job) throw new PushRejection(404, 'JobNotFound', `unknown job "${jobName}"`);
    if (!job.push) throw new PushRejection(404, 'PushNotEnabled', `job "${jobName}" takes no pushes (no push block in its configuration)`);
    const mapping = this.deps.config.getMapping(job.mapping);
    if (!mapping) throw new PushRejection(404, 'MappingNotFound', `job "${jobName}": unknown mapping "${job.mapping}"`);
    return { job, mapping };
  }

  private checkAge(reading: PushReading, maxAgeSeconds: number): void {
    const age = this.deps.clock.now().getTime() - reading.sentAt.getTime();
    if (age > maxAgeSeconds * 1000) {
      throw new PushRejection(400, 'NotificationExpired', `${reading.sentAtPath}: sent at ${reading.sentAt.toISOString()}, over ${maxAgeSeconds} s ago (push.maxAgeSeconds): refused as a replay`);
    }
    if (age < -FUTURE_SKEW_MS) throw new PushRejection(400, 'BadNotification', `${reading.sentAtPath}: ${reading.sentAt.toISOString()} is in the future`);
  }

  private async accept(job: Job, mapping: Mapping, reading: PushReading): Promise<PushOutcome> {
    const changes = [...(await this.readRecords(job, mapping, reading)), ...reading.changes];
    const messages: QueueMessage[] = [];
    for (const [i, change] of changes.entries()) messages.push(await this.toMessage(job, mapping, change, i));
    const queue = this.deps.queues.work[job.priority];
    if (messages.length > 0) {
      await new ServiceBusService({ bus: this.deps.bus, queues: this.deps.queues }).sendOutgoing(queue, messages.map((m) => toOutgoingMessage(m)));
    }
    if (reading.pollReason) await this.deps.requestPoll(job);
    const outcome: PushOutcome = { job: job.name, queue, sent: messages.length, messageIds: messages.map((m) => messageIdFor(m)) };
    if (reading.pollReason) outcome.pollRequested = reading.pollReason;
    this.deps.log.info(`push for job "${job.name}": ${messages.length} message(s) sent to ${queue}${reading.pollReason ? `; poll requested (${reading.pollReason})` : ''}`);
    return outcome;
  }

  /** The rows a reading asks to read by id, as upserts; a row gone meanwhile is left to its delete. */
  private async readRecords(job: Job, mapping: Mapping, reading: PushReading): Promise<PushedChange[]> {
    if (!reading.reads?.length) return [];
    const reader = this.deps.dataverse(job.source);
    const key = mapping.source.key[0];
    const out: PushedChange[] = [];
    for (const { id, fallbackChangeTracker } of reading.reads) {
      const row = await reader.readRecord(mapping.source.entity, id, upsertColumns(job, mapping));
      if (row) out.push({ action: 'upsert', row: { ...row, [key]: row[key] ?? id }, fallbackChangeTracker });
    }
    return out;
  }

  /** One change as the message a poll would send for it. @throws PushRejection (400) when the record does not serialize. */
  private async toMessage(job: Job, mapping: Mapping, change: PushedChange, index: number): Promise<QueueMessage> {
    const present = change.row[job.watermark.field];
    try {
      const changeTracker = present === null || present === undefined ? fallbackTracker(job, change.fallbackChangeTracker) : canonicalChangeTracker(change.row, job);
      return await ConnectorBase.serialize(change.row, mapping, job, {
        clock: this.deps.clock,
        action: change.action === 'delete' ? JobActionType.Delete : JobActionType.NewUpdate,
        changeTracker,
        // A delete carries only the key; its other mapped fields are not needed.
        missingFieldsAreNull: change.action === 'delete' || change.missingIsNull === true,
      });
    } catch (err) {
      throw new PushRejection(400, 'BadNotification', `change ${index}: ${errorMessage(err)}`);
    }
  }
}

function fallbackTracker(job: Job, value: unknown): string {
  const type = parseWatermarkType(job.watermark.type);
  if (!type || value === undefined) throw new Error(`job "${job.name}": no value for the change tracker "${job.watermark.field}"`);
  return WatermarkValue.canonicalize(type, value);
}

function parseBody(body: string): unknown {
  try {
    return JSON.parse(body.charCodeAt(0) === 0xfeff ? body.slice(1) : body);
  } catch (err) {
    throw new PushRejection(400, 'BadNotification', `body: not JSON (${errorMessage(err).replace(/, "[\s\S]*"(\.\.\.)? is not valid JSON$/, '')})`);
  }
}
