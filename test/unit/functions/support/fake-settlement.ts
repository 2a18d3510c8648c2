import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import type { ServiceBusSettlementActions, StringValueWire } from '../../../../functions/support/service-bus-settler';

export interface SettlementRecord {
  action: 'complete' | 'abandon' | 'deadletter' | 'renewMessageLock';
  lockToken: string;
  propertiesToModify?: Uint8Array;
  deadletterReason?: StringValueWire;
  deadletterErrorDescription?: StringValueWire;
}

/**
 * Settlement actions that behave like the host's Settlement service: a message is settled once
 * (complete, abandon or dead-letter); settling or renewing it afterwards fails as a lost lock.
 * Lock tokens in `lost` fail every call, as a lock that expired does.
 */
export class FakeSettlement implements ServiceBusSettlementActions {
  readonly records: SettlementRecord[] = [];
  readonly lost = new Set<string>();
  private readonly settled = new Set<string>();

  complete(message: ServiceBusReceivedMessage): Promise<void> {
    return this.settle({ action: 'complete', lockToken: this.token(message) });
  }

  abandon(message: ServiceBusReceivedMessage, propertiesToModify?: Uint8Array): Promise<void> {
    return this.settle({ action: 'abandon', lockToken: this.token(message), propertiesToModify });
  }

  deadletter(message: ServiceBusReceivedMessage, propertiesToModify?: Uint8Array, deadletterReason?: StringValueWire, deadletterErrorDescription?: StringValueWire): Promise<void> {
    return this.settle({ action: 'deadletter', lockToken: this.token(message), propertiesToModify, deadletterReason, deadletterErrorDescription });
  }

  async renewMessageLock(message: ServiceBusReceivedMessage): Promise<void> {
    const lockToken = this.token(message);
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

  private token(message: ServiceBusReceivedMessage): string {
    if (!message.lockToken) throw new Error('ArgumentException: lockToken is required in ServiceBusReceivedMessage.');
    return message.lockToken;
  }
}
