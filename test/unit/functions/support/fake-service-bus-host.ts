import { randomUUID } from 'node:crypto';
import { InvocationContext } from '@azure/functions';
import { RenewalUnsupportedError } from '../../../../functions/support/settlement-client';
import type { DeadLetterRequest, RenewalSupport, ServiceBusSettlementActions } from '../../../../functions/support/service-bus-settler';
import type { QueueItemsHandler } from '../../../../functions/support/queue-trigger';
import type { FakeClock } from '../../../support/fake-clock';
import { bindHostMessages, type HostMessage } from './sdk-binding';

interface Stored {
  readonly sequenceNumber: number;
  readonly messageId: string;
  readonly body: string;
  /** Deliveries so far, the current one included (what the host's binding data carries). */
  deliveryCount: number;
  state: 'available' | 'locked' | 'completed' | 'deadLettered';
  lockToken?: string;
  lockedUntil?: number;
  deadLetterReason?: string;
  properties: Record<string, unknown>;
}

export interface FakeHostOptions {
  clock: FakeClock;
  /** The queue's lock duration. Default 60 s (infra). */
  lockDurationMs?: number;
  /** The queue's maxDeliveryCount. Default 10 (infra). */
  maxDeliveryCount?: number;
  /** host.json maxMessageBatchSize. Default 256. */
  maxBatchSize?: number;
  /** Whether the host's Settlement service has RenewMessageLock. Default yes. */
  renewal?: 'supported' | 'unsupported';
}

/**
 * A queue and the Functions host's batch receive loop around it, on a fake clock, with the
 * rules that decide how fast deliveries are used up:
 *
 * - Receive locks up to `maxBatchSize` available messages (lowest sequence number first) for the
 *   lock duration and counts a delivery. An abandoned or expired lock makes the message
 *   available at once; past `maxDeliveryCount` it is dead-lettered (`MaxDeliveryCountExceeded`).
 * - The loop invokes the handler and, when the invocation fails, abandons every message of the
 *   batch not settled by it; then it receives again at once (ServiceBusListener's batch loop with
 *   `autoCompleteMessages: false`). An empty receive waits a second.
 * - Settlement and renewal work only for a lock token of the running invocation whose lock has
 *   not expired (the host's actions cache, the broker's lock).
 */
export class FakeServiceBusHost {
  readonly store: Stored[] = [];
  /** Every call the handler made, in order. */
  readonly calls: Array<{ action: string; lockToken: string; at: number }> = [];
  readonly logs: string[] = [];
  invocations = 0;
  private readonly active = new Set<string>();
  private readonly lockMs: number;
  private readonly maxDeliveries: number;
  private support: RenewalSupport = 'unknown';

  constructor(private readonly options: FakeHostOptions) {
    this.lockMs = options.lockDurationMs ?? 60_000;
    this.maxDeliveries = options.maxDeliveryCount ?? 10;
  }

  send(count: number, body: (i: number) => string): void {
    for (let i = 0; i < count; i++) {
      const sequenceNumber = this.store.length + 1;
      this.store.push({ sequenceNumber, messageId: `m-${sequenceNumber}`, body: body(i), deliveryCount: 0, state: 'available', properties: {} });
    }
  }

  count(state: Stored['state']): number {
    this.expireLocks();
    return this.store.filter((m) => m.state === state).length;
  }

  /** Runs the batch loop until `done()` or until `untilMs` of fake time passed; the test advances the clock. */
  async run(handler: QueueItemsHandler, functionName: string, done: () => boolean, untilMs: number): Promise<void> {
    const end = this.now() + untilMs;
    while (!done() && this.now() < end) {
      const batch = this.receive();
      if (batch.length === 0) {
        await this.options.clock.sleep(1000);
        continue;
      }
      this.invocations++;
      batch.forEach((m) => this.active.add(m.lockToken ?? ''));
      const context = new InvocationContext({ functionName, logHandler: (level, ...args) => this.logs.push(`${level}: ${args.join(' ')}`) });
      let failed = false;
      try {
        await handler({ ...bindHostMessages(batch.map((m) => this.hostMessage(m))), actions: this.actions }, context);
      } catch {
        failed = true;
      }
      batch.forEach((m) => this.active.delete(m.lockToken ?? ''));
      if (failed) for (const m of batch) if (m.state === 'locked' && m.lockedUntil! > this.now()) this.release(m);
    }
  }

  readonly actions: ServiceBusSettlementActions = this.makeActions();

  private makeActions(): ServiceBusSettlementActions {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the getter below is the actions object's own
    const host = this;
    return {
    complete: async (lockToken) => this.settle('complete', lockToken, (m) => (m.state = 'completed')),
    abandon: async (lockToken, propertiesToModify) =>
      this.settle('abandon', lockToken, (m) => {
        if (propertiesToModify) m.properties.abandonedWith = propertiesToModify;
        this.release(m);
      }),
    deadLetter: async (lockToken, request: DeadLetterRequest) =>
      this.settle('deadLetter', lockToken, (m) => {
        m.state = 'deadLettered';
        m.deadLetterReason = request.reason;
      }),
    renewMessageLock: async (lockToken) => {
      if (this.options.renewal === 'unsupported') {
        this.calls.push({ action: 'renewMessageLock', lockToken, at: this.now() });
        this.support = 'unsupported';
        throw new RenewalUnsupportedError('the Functions host has no RenewMessageLock (Service Bus extension before 5.16): message locks cannot be renewed');
      }
      this.support = 'supported';
      this.settle('renewMessageLock', lockToken, (m) => (m.lockedUntil = this.now() + this.lockMs));
    },
    get renewalSupport() {
      return host.support;
    },
    };
  }

  private settle(action: string, lockToken: string, apply: (m: Stored) => void): void {
    this.calls.push({ action, lockToken, at: this.now() });
    this.expireLocks();
    const m = this.store.find((s) => s.lockToken === lockToken && s.state === 'locked');
    if (!m || !this.active.has(lockToken)) throw new Error(`LockToken ${lockToken} not found.`);
    apply(m);
  }

  private receive(): Stored[] {
    this.expireLocks();
    const batch = this.store.filter((m) => m.state === 'available').slice(0, this.options.maxBatchSize ?? 256);
    for (const m of batch) {
      m.state = 'locked';
      m.deliveryCount++;
      m.lockToken = randomUUID();
      m.lockedUntil = this.now() + this.lockMs;
    }
    return batch;
  }

  private expireLocks(): void {
    for (const m of this.store) if (m.state === 'locked' && m.lockedUntil! <= this.now()) this.release(m);
  }

  private release(m: Stored): void {
    m.lockToken = undefined;
    m.lockedUntil = undefined;
    if (m.deliveryCount >= this.maxDeliveries) {
      m.state = 'deadLettered';
      m.deadLetterReason = 'MaxDeliveryCountExceeded';
    } else m.state = 'available';
  }

  private hostMessage(m: Stored): HostMessage {
    return {
      body: m.body,
      messageId: m.messageId,
      contentType: 'application/json',
      deliveryCount: m.deliveryCount,
      enqueuedTime: new Date(0),
      sequenceNumber: m.sequenceNumber,
      lockToken: m.lockToken ?? '',
      lockedUntil: new Date(m.lockedUntil ?? 0),
    };
  }

  private now(): number {
    return this.options.clock.now().getTime();
  }
}
