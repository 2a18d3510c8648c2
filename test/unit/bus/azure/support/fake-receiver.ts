import type { ServiceBusReceivedMessage, ServiceBusReceiver } from '@azure/service-bus';
import Long from 'long';

/** An error shaped as the SDK throws it (`ServiceBusError` with a `code`). */
export function sdkError(code: string, message = `fake ${code}`): Error {
  return Object.assign(new Error(message), { name: 'ServiceBusError', code });
}

/**
 * The part of a peek-lock `ServiceBusReceiver` the adapter's completion uses, honouring lock
 * tokens as the broker does: a token completes once; an unknown, settled or expired token is
 * `MessageLockLost`. Each completion takes a few ms so that calls overlap, and the peak of
 * calls in flight is recorded (for the concurrency cap).
 */
export class FakeReceiver {
  /** Lock tokens the broker still holds a lock for. */
  readonly locked = new Set<string>();
  /** Tokens whose completion fails with this error instead (e.g. ServiceBusy). */
  readonly failures = new Map<string, unknown>();
  readonly completed: string[] = [];
  calls = 0;
  peakInFlight = 0;
  isClosed = false;
  private inFlight = 0;
  private nextSeq = 1;
  private pending: ServiceBusReceivedMessage[] = [];

  constructor(private readonly delayMs = 3) {}

  /** Makes `n` messages available to the next receive. */
  enqueue(n: number): void {
    for (let i = 0; i < n; i++) {
      const seq = this.nextSeq++;
      this.pending.push({
        body: Buffer.from(`m${seq}`),
        messageId: `m-${seq}`,
        applicationProperties: {},
        sequenceNumber: Long.fromNumber(seq),
        deliveryCount: 0,
        enqueuedTimeUtc: new Date(),
        lockToken: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
        lockedUntilUtc: new Date(Date.now() + 60_000),
        state: 'active',
      } as unknown as ServiceBusReceivedMessage);
    }
  }

  async receiveMessages(max: number): Promise<ServiceBusReceivedMessage[]> {
    const batch = this.pending.splice(0, max);
    for (const m of batch) this.locked.add(m.lockToken as string);
    return batch;
  }

  async completeMessage(message: ServiceBusReceivedMessage): Promise<void> {
    const token = message.lockToken as string;
    this.calls++;
    this.inFlight++;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      if (this.failures.has(token)) throw this.failures.get(token);
      if (!this.locked.delete(token)) throw sdkError('MessageLockLost', 'The lock supplied is invalid.');
      this.completed.push(token);
    } finally {
      this.inFlight--;
    }
  }

  async close(): Promise<void> {
    this.isClosed = true;
  }

  asReceiver(): ServiceBusReceiver {
    return this as unknown as ServiceBusReceiver;
  }
}
