import { randomBytes } from 'node:crypto';
import type { AddressInfo, Server } from 'node:net';
import { create_container, message as amqp, uuid_to_string, type Container, type EventContext, type Message } from 'rhea';

/**
 * A small in-process AMQP 1.0 broker that speaks the Service Bus dialect the way
 * `@azure/service-bus` 7.9 uses it against the official emulator (`UseDevelopmentEmulator=true`:
 * plain TCP, SASL ANONYMOUS, CBS put-token). It exists because neither Service Bus nor its
 * emulator can run on these machines; it lets the real SDK drive the real adapter end to end.
 *
 * Covered: CBS; sender links with the broker's `max-message-size`, single and batched transfers
 * (format 0x80013700); peek-lock receiver links with credit and drain, lock tokens as delivery
 * tags, sequence numbers, enqueued/locked-until annotations, delivery count; settlement
 * (accepted = complete, modified = abandon with properties, rejected `com.microsoft:dead-letter`
 * = dead-letter), `com.microsoft:message-lock-lost` for settled or expired locks; the
 * `$management` operations renew-lock and peek-message; `$DeadLetterQueue` subqueues; scheduled
 * messages; `amqp:not-found` for unknown queues; max delivery count. Not covered: sessions,
 * transactions, TTL expiry, duplicate detection, update-disposition, the HTTPS admin API.
 */

const BATCH_FORMAT = 0x80013700;
const DEAD_LETTER_SUFFIX = '/$DeadLetterQueue';
const MANAGEMENT_SUFFIX = '/$management';

interface Stored {
  seq: number;
  message: Message;
  enqueuedAt: number;
  availableAt: number;
  /** Broker count of previous deliveries (the AMQP header value). */
  deliveries: number;
  lock?: { key: string; until: number };
}

interface Entity {
  active: Stored[];
  deadLetter: Stored[];
}

interface Settlement {
  entity: Stored[];
  stored: Stored;
  key: string;
  queue: string;
}

/** Loose views of rhea internals used here (its typings omit them). */
interface LinkInternals {
  local: { attach: Record<string, unknown> };
  remote: { attach?: { source?: { address?: string }; target?: { address?: string } } };
  set_source(fields: Record<string, unknown>): void;
  set_target(fields: Record<string, unknown>): void;
  close(error?: { condition: string; description: string }): void;
  set_drained(drained: boolean): void;
  sendable(): boolean;
  send(message: Message | Buffer, tag?: Buffer, format?: number): DeliveryInternals;
  is_open(): boolean;
}

interface DeliveryInternals {
  format?: number;
  remote_state?: { error?: { condition?: string; info?: Record<string, unknown> }; message_annotations?: Record<string, unknown> };
  update(settled: boolean, state?: unknown): void;
  accept(): void;
  reject(error: { condition: string; description: string }): void;
}

export interface FakeServiceBusOptions {
  queues: string[];
  /** Default 60,000 (as the architecture configures the queues). */
  lockDurationMs?: number;
  /** Default 10. */
  maxDeliveryCount?: number;
  /** Default 262,144 (Standard tier). */
  maxMessageSizeBytes?: number;
}

export class FakeServiceBus {
  private readonly container: Container = create_container({ id: 'fake-service-bus' });
  private readonly entities = new Map<string, Entity>();
  private readonly consumers = new Map<string, Set<LinkInternals>>();
  private readonly settlements = new WeakMap<object, Settlement>();
  private readonly locks = new Map<string, Settlement>();
  private server?: Server;
  private nextSeq = 1;
  readonly lockDurationMs: number;
  readonly maxDeliveryCount: number;
  readonly maxMessageSizeBytes: number;

  constructor(options: FakeServiceBusOptions) {
    for (const queue of options.queues) this.entities.set(queue, { active: [], deadLetter: [] });
    this.lockDurationMs = options.lockDurationMs ?? 60_000;
    this.maxDeliveryCount = options.maxDeliveryCount ?? 10;
    this.maxMessageSizeBytes = options.maxMessageSizeBytes ?? 262_144;
    this.container.sasl_server_mechanisms.enable_anonymous();
    this.container.on('receiver_open', (context: EventContext) => this.onClientSender(context));
    this.container.on('sender_open', (context: EventContext) => this.onClientReceiver(context));
    this.container.on('message', (context: EventContext) => this.onTransfer(context));
    this.container.on('sendable', (context: EventContext) => this.pump(addressOf(context.sender as unknown as LinkInternals, 'source')));
    this.container.on('sender_draining', (context: EventContext) => (context.sender as unknown as LinkInternals).set_drained(true));
    this.container.on('accepted', (context: EventContext) => this.onSettle(context, 'complete'));
    this.container.on('modified', (context: EventContext) => this.onSettle(context, 'abandon'));
    this.container.on('rejected', (context: EventContext) => this.onSettle(context, 'deadLetter'));
    this.container.on('released', (context: EventContext) => this.onSettle(context, 'abandon'));
    this.container.on('error', (err: unknown) => console.error('FAKE ERROR', err));
    this.container.on('connection_error', () => undefined);
    this.container.on('disconnected', () => undefined);
  }

  /** Starts listening on 127.0.0.1 and a free port; returns the emulator connection string. */
  async start(): Promise<string> {
    const server = this.container.listen({ port: 0, host: '127.0.0.1', autoaccept: false, autosettle: false, treat_modified_as_released: false }) as unknown as Server;
    this.server = server;
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const port = (server.address() as AddressInfo).port;
    return `Endpoint=sb://127.0.0.1:${port};SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=fake-key;UseDevelopmentEmulator=true;`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Messages currently in a queue (not counting the dead-letter subqueue). */
  depth(queue: string, subQueue?: 'deadLetter'): number {
    const entity = this.entities.get(queue);
    return (subQueue === 'deadLetter' ? entity?.deadLetter : entity?.active)?.length ?? 0;
  }

  private entityFor(address: string): { queue: string; list: Stored[] } | undefined {
    const dead = address.endsWith(DEAD_LETTER_SUFFIX);
    const queue = dead ? address.slice(0, -DEAD_LETTER_SUFFIX.length) : address;
    const entity = this.entities.get(queue);
    return entity && { queue, list: dead ? entity.deadLetter : entity.active };
  }

  private notFound(link: LinkInternals, address: string): boolean {
    const base = address.endsWith(MANAGEMENT_SUFFIX) ? address.slice(0, -MANAGEMENT_SUFFIX.length) : address;
    if (base === '$cbs' || this.entityFor(base)) return false;
    link.close({ condition: 'amqp:not-found', description: `The messaging entity 'sb://127.0.0.1/${base}' could not be found.` });
    return true;
  }

  /** The client opened a sender: we receive on it (a queue, `$cbs` or `$management`). */
  private onClientSender(context: EventContext): void {
    const link = context.receiver as unknown as LinkInternals;
    const address = addressOf(link, 'target');
    link.set_target({ address });
    link.set_source({ address: link.remote.attach?.source?.address });
    link.local.attach.max_message_size = this.maxMessageSizeBytes;
    this.notFound(link, address);
  }

  /** The client opened a receiver: we send on it (a queue, or the reply link of `$cbs` / `$management`). */
  private onClientReceiver(context: EventContext): void {
    const link = context.sender as unknown as LinkInternals;
    const address = addressOf(link, 'source');
    link.set_source({ address });
    link.set_target({ address: link.remote.attach?.target?.address });
    if (this.notFound(link, address)) return;
    if (!consumerAddress(address)) return;
    const set = this.consumers.get(address) ?? new Set<LinkInternals>();
    set.add(link);
    this.consumers.set(address, set);
  }

  private onTransfer(context: EventContext): void {
    const link = context.receiver as unknown as LinkInternals;
    const delivery = context.delivery as unknown as DeliveryInternals;
    const address = addressOf(link, 'target');
    const request = context.message as Message;
    if (address === '$cbs') return this.reply(context, request, 200, {});
    if (address.endsWith(MANAGEMENT_SUFFIX)) return this.onManagement(context, address.slice(0, -MANAGEMENT_SUFFIX.length), request);
    const target = this.entityFor(address);
    if (!target) return delivery.reject({ condition: 'amqp:not-found', description: `entity '${address}' not found` });
    // rhea decodes only format 0; a batch arrives as raw bytes.
    const messages = delivery.format === BATCH_FORMAT ? unbatch(amqp.decode(context.message as unknown as Buffer)) : [request];
    const now = Date.now();
    for (const message of messages) {
      const scheduled = message.message_annotations?.['x-opt-scheduled-enqueue-time'];
      const availableAt = scheduled instanceof Date ? scheduled.getTime() : now;
      target.list.push({ seq: this.nextSeq++, message, enqueuedAt: now, availableAt, deliveries: 0 });
    }
    delivery.accept();
    this.pump(address);
  }

  /** Delivers available messages to every consumer with credit. */
  private pump(address: string): void {
    const target = this.entityFor(address);
    const links = this.consumers.get(address);
    if (!target || !links) return;
    for (const link of links) {
      if (!link.is_open()) {
        links.delete(link);
        continue;
      }
      while (link.sendable()) {
        const now = Date.now();
        this.deadLetterExhausted(target.queue, target.list, now);
        const next = target.list.find((m) => m.availableAt <= now && (!m.lock || m.lock.until <= now));
        if (!next) break;
        const tag = randomBytes(16);
        const key = uuid_to_string(reorderGuid(tag));
        next.lock = { key, until: now + this.lockDurationMs };
        const wire = this.wireMessage(next, now);
        next.deliveries += 1;
        const settlement = { entity: target.list, stored: next, key, queue: target.queue };
        this.locks.set(key, settlement);
        this.settlements.set(link.send(wire, tag), settlement);
      }
    }
  }

  /** A message whose lock expired after its last allowed delivery goes to the dead-letter subqueue. */
  private deadLetterExhausted(queue: string, list: Stored[], now: number): void {
    const entity = this.entities.get(queue);
    if (!entity || list !== entity.active) return;
    for (const stored of [...list]) {
      if (stored.lock && stored.lock.until <= now && stored.deliveries >= this.maxDeliveryCount) {
        this.moveToDeadLetter(queue, stored, { DeadLetterReason: 'MaxDeliveryCountExceeded', DeadLetterErrorDescription: `Message could not be consumed after ${this.maxDeliveryCount} delivery attempts.` });
      }
    }
  }

  private wireMessage(stored: Stored, now: number): Message {
    const scheduled = stored.availableAt > now;
    return {
      ...stored.message,
      delivery_count: stored.deliveries,
      message_annotations: {
        ...stored.message.message_annotations,
        'x-opt-sequence-number': stored.seq,
        'x-opt-enqueued-time': new Date(stored.enqueuedAt),
        ...(stored.lock && stored.lock.until > now ? { 'x-opt-locked-until': new Date(stored.lock.until) } : {}),
        'x-opt-message-state': scheduled ? 2 : 0,
      },
    };
  }

  private onSettle(context: EventContext, outcome: 'complete' | 'abandon' | 'deadLetter'): void {
    const delivery = context.delivery as unknown as DeliveryInternals;
    const settlement = this.settlements.get(delivery);
    if (!settlement || !this.holds(settlement)) {
      return delivery.update(true, amqp.rejected({ error: { condition: 'com.microsoft:message-lock-lost', description: 'The lock supplied is invalid.' } }).described());
    }
    const { entity, stored, key, queue } = settlement;
    this.locks.delete(key);
    stored.lock = undefined;
    if (outcome === 'complete') entity.splice(entity.indexOf(stored), 1);
    else if (outcome === 'abandon') {
      Object.assign((stored.message.application_properties ??= {}), delivery.remote_state?.message_annotations ?? {});
      const dead = stored.deliveries >= this.maxDeliveryCount && entity === this.entities.get(queue)?.active;
      if (dead) this.moveToDeadLetter(queue, stored, { DeadLetterReason: 'MaxDeliveryCountExceeded', DeadLetterErrorDescription: `Message could not be consumed after ${this.maxDeliveryCount} delivery attempts.` });
    } else {
      entity.splice(entity.indexOf(stored), 1);
      this.entities.get(queue)?.deadLetter.push(stored);
      Object.assign((stored.message.application_properties ??= {}), delivery.remote_state?.error?.info ?? {});
    }
    delivery.update(true, amqp.accepted().described());
    this.pump(queue);
  }

  private moveToDeadLetter(queue: string, stored: Stored, properties: Record<string, string>): void {
    const entity = this.entities.get(queue);
    if (!entity) return;
    entity.active.splice(entity.active.indexOf(stored), 1);
    stored.lock = undefined;
    Object.assign((stored.message.application_properties ??= {}), properties);
    entity.deadLetter.push(stored);
  }

  private holds(settlement: Settlement): boolean {
    const lock = settlement.stored.lock;
    return this.locks.get(settlement.key) === settlement && lock?.key === settlement.key && lock.until > Date.now();
  }

  private onManagement(context: EventContext, entityPath: string, request: Message): void {
    const operation = request.application_properties?.operation;
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (operation === 'com.microsoft:renew-lock') {
      const tokens = (body['lock-tokens'] as Buffer[]).map((token) => uuid_to_string(token));
      const settlements = tokens.map((token) => this.locks.get(token));
      if (settlements.some((s) => !s || !this.holds(s))) {
        return this.reply(context, request, 410, {}, 'com.microsoft:message-lock-lost', 'The lock supplied is invalid.');
      }
      const until = Date.now() + this.lockDurationMs;
      for (const s of settlements) if (s?.stored.lock) s.stored.lock.until = until;
      return this.reply(context, request, 200, { expirations: settlements.map(() => new Date(until)) });
    }
    if (operation === 'com.microsoft:peek-message') {
      const from = Number(longValue(body['from-sequence-number']));
      const count = Number(body['message-count']);
      const list = this.entityFor(entityPath)?.list ?? [];
      const now = Date.now();
      const page = list.filter((m) => m.seq >= from).slice(0, count);
      if (page.length === 0) return this.reply(context, request, 204, {});
      const messages = page.map((m) => ({ message: amqp.encode({ ...this.wireMessage(m, now), delivery_count: m.deliveries }) }));
      return this.reply(context, request, 200, { messages });
    }
    this.reply(context, request, 501, {}, 'amqp:not-implemented', `operation ${String(operation)} is not implemented by the fake`);
  }

  private reply(context: EventContext, request: Message, status: number, body: Record<string, unknown>, condition?: string, description?: string): void {
    (context.delivery as unknown as DeliveryInternals).accept();
    const address = addressOf(context.receiver as unknown as LinkInternals, 'target');
    const session = (context.connection as unknown as { find_sender(filter: (s: LinkInternals) => boolean): LinkInternals | undefined });
    // The reply goes to the client's receiver on the same node; the SDK names it by reply-to as its
    // target or (for $cbs) only by the node's address.
    const replyLink =
      session.find_sender((s) => addressOf(s, 'source') === address && s.remote.attach?.target?.address === request.reply_to) ??
      session.find_sender((s) => addressOf(s, 'source') === address);
    replyLink?.send({
      correlation_id: request.message_id,
      application_properties: {
        statusCode: status,
        'status-code': status,
        ...(condition ? { 'error-condition': condition, 'status-description': description } : {}),
      },
      body,
    });
  }
}

function addressOf(link: LinkInternals, end: 'source' | 'target'): string {
  return link.remote.attach?.[end]?.address ?? '';
}

function consumerAddress(address: string): boolean {
  return address !== '$cbs' && !address.endsWith(MANAGEMENT_SUFFIX);
}

function unbatch(batch: Message): Message[] {
  const sections = (batch.body as { content: Buffer | Buffer[]; multiple?: boolean }).content;
  return (Array.isArray(sections) ? sections : [sections]).map((section) => amqp.decode(section));
}

/** .NET GUID byte order, which the SDK applies to delivery tags to form lock tokens. */
function reorderGuid(bytes: Buffer): Buffer {
  return Buffer.from([bytes[3], bytes[2], bytes[1], bytes[0], bytes[5], bytes[4], bytes[7], bytes[6], ...bytes.subarray(8)]);
}

function longValue(value: unknown): bigint {
  if (Buffer.isBuffer(value)) return value.readBigInt64BE(0);
  return BigInt(value as number);
}
