import { randomBytes } from 'node:crypto';
import type { AddressInfo, Server, Socket } from 'node:net';
import { create_container, uuid_to_string, type Container, type EventContext } from 'rhea';
import { amqp, longValue, reorderGuid, unbatch, wireMessage } from './fake-amqp-codec';
import { FakeQueue, type AmqpMessage, type FakeQueueOptions, type Lock, type Stored } from './fake-queue-store';

/**
 * A small in-process AMQP 1.0 broker speaking the Service Bus dialect the way
 * `@azure/service-bus` 7.9 uses it against the official emulator (`UseDevelopmentEmulator=true`:
 * plain TCP, SASL ANONYMOUS, CBS put-token). It exists because neither Service Bus nor its
 * emulator can run on these machines: it lets the real SDK drive the real adapter end to end.
 *
 * AMQP covered here: CBS; sender links announcing `max-message-size`; single and batched
 * transfers (format 0x80013700); peek-lock receiver links with credit and drain, lock tokens as
 * delivery tags (in the .NET GUID byte order the SDK undoes), sequence number / enqueued time /
 * locked-until / message state annotations; settlement (accepted = complete, modified = abandon
 * with properties, rejected `com.microsoft:dead-letter` = dead-letter) answered with
 * `com.microsoft:message-lock-lost` for a settled or expired lock; `$management` renew-lock and
 * peek-message; `$DeadLetterQueue` subqueues; `amqp:not-found` for unknown entities. Queue
 * semantics are in {@link FakeQueue}. Not covered: sessions, transactions, update-disposition,
 * schedule/cancel via management, the HTTPS administration API.
 */

/** Loose views of rhea internals used here (its typings omit them). */
interface LinkInternals {
  name: string;
  local: { attach: Record<string, unknown> };
  remote: { attach?: { source?: { address?: string }; target?: { address?: string } } };
  set_source(fields: Record<string, unknown>): void;
  set_target(fields: Record<string, unknown>): void;
  close(error?: { condition: string; description: string }): void;
  set_drained(drained: boolean): void;
  sendable(): boolean;
  send(message: AmqpMessage | Buffer, tag?: Buffer, format?: number): DeliveryInternals;
  is_open(): boolean;
}

interface DeliveryInternals {
  format?: number;
  remote_state?: { error?: { condition?: string; info?: Record<string, unknown> }; message_annotations?: Record<string, unknown> };
  update(settled: boolean, state?: unknown): void;
  accept(): void;
  reject(error: { condition: string; description: string }): void;
}

interface ConnectionInternals {
  find_sender(filter: (link: LinkInternals) => boolean): LinkInternals | undefined;
}

const BATCH_FORMAT = 0x80013700;
const DEAD_LETTER_SUFFIX = '/$DeadLetterQueue';
const MANAGEMENT_SUFFIX = '/$management';
const LOCK_LOST = { condition: 'com.microsoft:message-lock-lost', description: 'The lock supplied is invalid. Either the lock expired, or the message has already been removed from the queue.' };

const link = (context: EventContext, end: 'sender' | 'receiver') => context[end] as unknown as LinkInternals;
const deliveryOf = (context: EventContext) => context.delivery as unknown as DeliveryInternals;
const addressOf = (l: LinkInternals, end: 'source' | 'target') => l.remote.attach?.[end]?.address ?? '';

export class FakeServiceBus {
  private readonly container: Container = create_container({ id: 'fake-service-bus' });
  private readonly queues = new Map<string, FakeQueue>();
  private readonly consumers = new Map<string, Set<LinkInternals>>();
  private readonly deliveries = new WeakMap<object, Lock>();
  private readonly locks = new Map<string, Lock>();
  private readonly sockets = new Set<Socket>();
  private server?: Server;
  private seq = 0;

  constructor(options: { maxMessageSizeBytes?: number } = {}) {
    const maxMessageSize = options.maxMessageSizeBytes ?? 262_144;
    this.container.sasl_server_mechanisms.enable_anonymous();
    this.container.on('receiver_open', (context: EventContext) => this.onClientSender(link(context, 'receiver'), maxMessageSize));
    this.container.on('sender_open', (context: EventContext) => this.onClientReceiver(link(context, 'sender')));
    this.container.on('message', (context: EventContext) => this.onTransfer(context));
    this.container.on('sendable', (context: EventContext) => this.pump(addressOf(link(context, 'sender'), 'source')));
    this.container.on('sender_draining', (context: EventContext) => link(context, 'sender').set_drained(true));
    this.container.on('accepted', (context: EventContext) => this.onSettle(context, 'complete'));
    this.container.on('modified', (context: EventContext) => this.onSettle(context, 'abandon'));
    this.container.on('released', (context: EventContext) => this.onSettle(context, 'abandon'));
    this.container.on('rejected', (context: EventContext) => this.onSettle(context, 'deadLetter'));
    // A handler that throws would otherwise vanish into rhea: make it loud.
    this.container.on('error', (err: unknown) => console.error('fake-service-bus: handler failed', err));
    this.container.on('disconnected', () => undefined);
  }

  createQueue(name: string, options: FakeQueueOptions = {}): void {
    this.queues.set(name, new FakeQueue(name, options, () => ++this.seq));
  }

  /** Messages in a queue or its dead-letter subqueue (time applied first). */
  depth(queue: string, subQueue?: 'deadLetter'): number {
    const q = this.queues.get(queue);
    q?.tick(Date.now());
    return (subQueue === 'deadLetter' ? q?.deadLetter : q?.active)?.length ?? 0;
  }

  /** Listens on 127.0.0.1 and a free port; resolves with an emulator-style connection string. */
  async start(): Promise<string> {
    // Deliveries are accepted and settled by the handlers here, never automatically.
    const options = { port: 0, host: '127.0.0.1', autoaccept: false, autosettle: false, treat_modified_as_released: false };
    const server = this.container.listen(options as Parameters<Container['listen']>[0]) as unknown as Server;
    this.server = server;
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const { port } = server.address() as AddressInfo;
    return `Endpoint=sb://127.0.0.1:${port};SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=fake-key;UseDevelopmentEmulator=true;`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    // server.close waits for open connections: end those a client left open.
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private entity(address: string): { queue: FakeQueue; list: Stored[] } | undefined {
    const dead = address.endsWith(DEAD_LETTER_SUFFIX);
    const queue = this.queues.get(dead ? address.slice(0, -DEAD_LETTER_SUFFIX.length) : address);
    return queue && { queue, list: dead ? queue.deadLetter : queue.active };
  }

  /** Attaches to an unknown entity are refused the way Service Bus refuses them. */
  private refuseUnknown(l: LinkInternals, address: string): boolean {
    const base = address.endsWith(MANAGEMENT_SUFFIX) ? address.slice(0, -MANAGEMENT_SUFFIX.length) : address;
    if (base === '$cbs' || this.entity(base)) return false;
    l.close({ condition: 'amqp:not-found', description: `The messaging entity 'sb://127.0.0.1/${base}' could not be found.` });
    return true;
  }

  /** The client opened a sender; we receive (queue, `$cbs` or `$management` requests). */
  private onClientSender(l: LinkInternals, maxMessageSize: number): void {
    l.set_target({ address: addressOf(l, 'target') });
    l.set_source({ address: addressOf(l, 'source') });
    l.local.attach.max_message_size = maxMessageSize;
    this.refuseUnknown(l, addressOf(l, 'target'));
  }

  /** The client opened a receiver; we send (queue messages, or replies of `$cbs` / `$management`). */
  private onClientReceiver(l: LinkInternals): void {
    const address = addressOf(l, 'source');
    l.set_source({ address });
    l.set_target({ address: addressOf(l, 'target') });
    if (this.refuseUnknown(l, address) || address === '$cbs' || address.endsWith(MANAGEMENT_SUFFIX)) return;
    const set = this.consumers.get(address) ?? new Set<LinkInternals>();
    this.consumers.set(address, set.add(l));
  }

  private onTransfer(context: EventContext): void {
    const delivery = deliveryOf(context);
    const address = addressOf(link(context, 'receiver'), 'target');
    // rhea decodes format 0 only; a batch arrives as raw bytes holding one data section per message.
    const request = delivery.format === BATCH_FORMAT ? amqp.decode(context.message as unknown as Buffer) : (context.message as unknown as AmqpMessage);
    if (address === '$cbs') return this.reply(context, request, 200, {});
    if (address.endsWith(MANAGEMENT_SUFFIX)) return this.onManagement(context, address.slice(0, -MANAGEMENT_SUFFIX.length), request);
    const target = this.entity(address);
    if (!target) return delivery.reject({ condition: 'amqp:not-found', description: `entity '${address}' not found` });
    const now = Date.now();
    for (const m of delivery.format === BATCH_FORMAT ? unbatch(request) : [request]) target.queue.enqueue(m, now);
    delivery.accept();
    this.pump(address);
  }

  /** Delivers what is available to every consumer with credit. */
  private pump(address: string): void {
    const target = this.entity(address);
    for (const consumer of this.consumers.get(address) ?? []) {
      if (!target || !consumer.is_open()) continue;
      while (consumer.sendable()) {
        const now = Date.now();
        const next = target.queue.next(target.list, now);
        if (!next) break;
        const tag = randomBytes(16);
        const lock = target.queue.lock(target.list, next, uuid_to_string(reorderGuid(tag)), now);
        this.locks.set(lock.token, lock);
        // The header counts earlier deliveries; the SDK reports it as is (0 on the first).
        const wire = wireMessage(next, now, next.deliveries - 1);
        this.deliveries.set(consumer.send(amqp.encode(wire), tag, 0), lock);
      }
    }
  }

  private onSettle(context: EventContext, outcome: 'complete' | 'abandon' | 'deadLetter'): void {
    const delivery = deliveryOf(context);
    const lock = this.deliveries.get(delivery);
    if (!lock || !lock.queue.holds(lock, Date.now())) return delivery.update(true, amqp.rejected({ error: LOCK_LOST }).described());
    this.locks.delete(lock.token);
    if (outcome === 'complete') lock.queue.complete(lock);
    else if (outcome === 'abandon') lock.queue.abandon(lock, delivery.remote_state?.message_annotations ?? {});
    else lock.queue.deadLetterLocked(lock, delivery.remote_state?.error?.info ?? {});
    delivery.update(true, amqp.accepted().described());
    this.pump(lock.queue.name);
  }

  private onManagement(context: EventContext, entityPath: string, request: AmqpMessage): void {
    const operation = request.application_properties?.operation;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const now = Date.now();
    if (operation === 'com.microsoft:renew-lock') {
      const locks = (body['lock-tokens'] as Buffer[]).map((token) => this.locks.get(uuid_to_string(token)));
      if (locks.some((l) => !l || !l.queue.holds(l, now))) return this.reply(context, request, 410, {}, LOCK_LOST.condition, LOCK_LOST.description);
      const expirations = locks.map((l) => {
        const until = now + (l as Lock).queue.lockDurationMs;
        if (l?.stored.lock) l.stored.lock.until = until;
        return new Date(until);
      });
      return this.reply(context, request, 200, { expirations });
    }
    if (operation === 'com.microsoft:peek-message') {
      const target = this.entity(entityPath);
      target?.queue.tick(now);
      const from = Number(longValue(body['from-sequence-number']));
      const page = (target?.list ?? []).filter((m) => m.seq >= from).slice(0, Number(body['message-count']));
      if (page.length === 0) return this.reply(context, request, 204, {});
      return this.reply(context, request, 200, { messages: page.map((m) => ({ message: amqp.encode(wireMessage(m, now, m.deliveries)) })) });
    }
    this.reply(context, request, 501, {}, 'amqp:not-implemented', `operation ${String(operation)} is not implemented by the fake`);
  }

  private reply(context: EventContext, request: AmqpMessage, status: number, body: Record<string, unknown>, condition?: string, description?: string): void {
    deliveryOf(context).accept();
    const address = addressOf(link(context, 'receiver'), 'target');
    const connection = context.connection as unknown as ConnectionInternals;
    // Replies go to the client's receiver named by reply-to (its name for $cbs, its target for $management).
    const replyLink = connection.find_sender(
      (s) => addressOf(s, 'source') === address && (s.name === request.reply_to || addressOf(s, 'target') === request.reply_to),
    );
    replyLink?.send({
      correlation_id: request.message_id,
      application_properties: { statusCode: status, ...(condition ? { 'error-condition': condition, 'status-description': description } : {}) },
      body,
    });
  }
}
