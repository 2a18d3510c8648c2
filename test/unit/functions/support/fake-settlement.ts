import { RenewalUnsupportedError } from '../../../../functions/support/settlement-client';
import type { DeadLetterRequest, RenewalSupport, ServiceBusSettlementActions } from '../../../../functions/support/service-bus-settler';

export interface SettlementRecord {
  action: 'complete' | 'abandon' | 'deadLetter' | 'renewMessageLock';
  lockToken: string;
  propertiesToModify?: Uint8Array;
  reason?: string;
  description?: string;
}

/**
 * Settlement actions that behave like our client of the host's Settlement service: a message is
 * settled once (complete, abandon or dead-letter); settling or renewing it afterwards fails as a
 * lost lock. Lock tokens in `lost` fail every call, as a lock that expired does. With
 * `renewal: 'unsupported'` (a host before RenewMessageLock) every renewal fails as the client
 * reports it, and the client's `renewalSupport` turns `unsupported` after the first.
 */
export class FakeSettlement implements ServiceBusSettlementActions {
  readonly records: SettlementRecord[] = [];
  readonly lost = new Set<string>();
  private readonly settled = new Set<string>();
  private support: RenewalSupport = 'unknown';

  constructor(private readonly renewal: 'supported' | 'unsupported' = 'supported') {}

  get renewalSupport(): RenewalSupport {
    return this.support;
  }

  complete(lockToken: string): Promise<void> {
    return this.settle({ action: 'complete', lockToken });
  }

  abandon(lockToken: string, propertiesToModify?: Uint8Array): Promise<void> {
    return this.settle({ action: 'abandon', lockToken, propertiesToModify });
  }

  deadLetter(lockToken: string, request: DeadLetterRequest): Promise<void> {
    return this.settle({ action: 'deadLetter', lockToken, propertiesToModify: request.propertiesToModify, reason: request.reason, description: request.description });
  }

  async renewMessageLock(lockToken: string): Promise<void> {
    if (this.renewal === 'unsupported') {
      this.support = 'unsupported';
      throw new RenewalUnsupportedError('the Functions host has no RenewMessageLock (Service Bus extension before 5.16): message locks cannot be renewed');
    }
    this.support = 'supported';
    if (this.lost.has(lockToken)) throw new Error(`lock ${lockToken} lost: it expired`);
    if (this.settled.has(lockToken)) throw new Error(`lock ${lockToken} lost: the message was already settled`);
    this.records.push({ action: 'renewMessageLock', lockToken });
  }

  private async settle(record: SettlementRecord): Promise<void> {
    if (this.lost.has(record.lockToken)) throw new Error(`lock ${record.lockToken} lost: it expired`);
    if (this.settled.has(record.lockToken)) throw new Error(`lock ${record.lockToken} lost: the message was already settled`);
    this.settled.add(record.lockToken);
    this.records.push(record);
  }
}
